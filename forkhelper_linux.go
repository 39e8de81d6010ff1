package nsrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
)

// A program forks the init with its whole address space: Go cannot vfork
// a child that gets a new user namespace (the parent writes the child's
// uid/gid maps while the child waits), so the fork copies the program's
// page tables and leaves its heap copy-on-write. That costs ≈ 0.05 ms per
// MiB resident here (a server holding 512 MiB: 42 ms a launch instead of
// 10). Above forkHelperMiB, Start vforks the fork helper instead, a fresh
// small process that forks the init, reports its pid, waits for it and
// ends as it ended; its own start (≈ 2 ms) does not grow with the heap.
const (
	forkStage     = "nsrun-fork"
	forkHelperMiB = 64
)

// The helper's descriptors after the init's 0–4, which it passes on.
const (
	helperRequestFD = 5 // forkRequest
	helperResultFD  = 6 // forkResult
	helperCgroupFD  = 7 // the cgroup v2 directory the init is born in, if any
)

// forkRequest is what the helper needs to fork the init as Start would.
type forkRequest struct {
	Cloneflags uintptr
	UIDs, GIDs []syscall.SysProcIDMap
	Setsid     bool
	Cgroup     bool
}

// forkResult is the init's pid, or the errno of the failed fork.
type forkResult struct {
	Pid   int
	Errno uintptr
}

// useForkHelper says why the init should be forked through the helper, or
// "" if not: this process is large enough that the helper is cheaper, or
// NSRUN_FORK_HELPER=1 forces it (so the tests cover that path too).
func useForkHelper() string {
	if os.Getenv("NSRUN_FORK_HELPER") == "1" {
		return "NSRUN_FORK_HELPER=1"
	}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return ""
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return ""
	}
	pages, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil || pages*uint64(os.Getpagesize()) <= forkHelperMiB<<20 {
		return ""
	}
	return fmt.Sprintf("over %d MiB resident", forkHelperMiB)
}

// helperAttr turns the init's attributes into the helper's: the same
// descriptors plus the request and result pipes (and the cgroup), no
// namespaces, so the program vforks it; the request carries the rest.
func helperAttr(init *syscall.ProcAttr, request, result *os.File) (*syscall.ProcAttr, forkRequest) {
	sys := init.Sys
	req := forkRequest{Cloneflags: sys.Cloneflags, UIDs: sys.UidMappings, GIDs: sys.GidMappings,
		Setsid: sys.Setsid, Cgroup: sys.UseCgroupFD}
	files := append(append([]uintptr{}, init.Files...), request.Fd(), result.Fd())
	if sys.UseCgroupFD {
		files = append(files, uintptr(sys.CgroupFD))
	}
	return &syscall.ProcAttr{Env: []string{}, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}, req
}

// handOff sends the helper its request and reads back the init's pid. On
// failure the helper is killed and reaped.
func (s *sysCmd) handOff(req forkRequest, request, result *os.File) error {
	b, err := frame(&req, "fork request")
	if err == nil {
		_, err = request.Write(b)
	}
	var res forkResult
	if err == nil {
		err = readFrame(result, &res, "fork result")
	}
	if err == nil && res.Errno != 0 {
		err = syscall.Errno(res.Errno)
	}
	if err == nil {
		s.pid = res.Pid
		s.pidfd, err = unix.PidfdOpen(res.Pid, 0)
		if err != nil {
			_ = unix.Kill(res.Pid, unix.SIGKILL)
			err = fmt.Errorf("pidfd_open %d: %w", res.Pid, err)
		}
	}
	if err != nil {
		s.pidfd = -1
		_ = unix.Kill(s.waitPid, unix.SIGKILL)
		var ws unix.WaitStatus
		for {
			if _, werr := unix.Wait4(s.waitPid, &ws, 0, nil); werr != unix.EINTR {
				break
			}
		}
	}
	return err
}

// runForkHelper is the helper: it forks the init from its locked thread
// (the init's parent-death signal follows it), then lives as long as the
// init and ends as it did, so the program's Wait sees the init's end.
func runForkHelper() int {
	runtime.LockOSThread()
	var req forkRequest
	if err := readFrame(os.NewFile(helperRequestFD, "request"), &req, "fork request"); err != nil {
		return ExitSetup
	}
	pidfd := -1
	attr := &syscall.ProcAttr{
		Env:   []string{},
		Files: []uintptr{0, 1, 2, 3, 4},
		Sys: &syscall.SysProcAttr{Setsid: req.Setsid, Cloneflags: req.Cloneflags,
			UidMappings: req.UIDs, GidMappings: req.GIDs, AmbientCaps: ns.SetupCaps, PidFD: &pidfd},
	}
	if req.Cgroup {
		attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, helperCgroupFD
	}
	pid, err := syscall.ForkExec(reexec.Self, []string{initStage}, attr)
	res := forkResult{Pid: pid}
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		res.Errno = uintptr(errno)
	}
	if b, ferr := frame(&res, "fork result"); ferr == nil {
		_, _ = os.NewFile(helperResultFD, "result").Write(b)
	}
	// The streams and pipes are the init's now: the program must see
	// them close when the init ends, not when this process does.
	_ = unix.CloseRange(0, helperCgroupFD, 0)
	if err != nil {
		return ExitSetup
	}
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
			break
		}
	}
	if ws.Signaled() {
		signal.Reset(ws.Signal())
		_ = unix.Kill(unix.Getpid(), ws.Signal())
	}
	return ws.ExitStatus()
}
