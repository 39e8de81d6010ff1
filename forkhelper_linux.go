package nsrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
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

// The helper's descriptors after the init's 0–6, which it passes on (5,
// the pty's socket, only when the sandbox has a terminal; 6, the network
// socket, only when its network is filtered); the init's ExtraFiles come
// after the helper's own, where the request says.
const (
	helperRequestFD = 7 // forkRequest
	helperResultFD  = 8 // forkResult
	helperCgroupFD  = 9 // the cgroup v2 directory the init is born in, if any
)

// passed reports whether files gives the child descriptor fd.
func passed(files []uintptr, fd int) bool {
	return len(files) > fd && files[fd] != ^uintptr(0)
}

// forkRequest is what the helper needs to fork the init as Start would.
type forkRequest struct {
	Cloneflags uintptr
	UIDs, GIDs []syscall.SysProcIDMap
	Caps       []uintptr // the init's ambient capabilities
	Setsid     bool
	Cgroup     bool
	TTY        bool  // the init gets descriptor launch.TTYSockFD too
	Net        bool  // the init gets descriptor launch.NetSockFD too
	Extra      []int // the helper's descriptors the init gets next, in order
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
// namespaces, so the program vforks it; the request carries the rest. The
// last extra of the init's descriptors are its ExtraFiles.
func helperAttr(init *syscall.ProcAttr, request, result *os.File, extra int) (*syscall.ProcAttr, forkRequest) {
	sys := init.Sys
	fixed := init.Files[:len(init.Files)-extra]
	req := forkRequest{Cloneflags: sys.Cloneflags, UIDs: sys.UidMappings, GIDs: sys.GidMappings, Caps: sys.AmbientCaps,
		Setsid: sys.Setsid, Cgroup: sys.UseCgroupFD, TTY: passed(fixed, launch.TTYSockFD), Net: passed(fixed, launch.NetSockFD)}
	// The init's descriptors at their places (none where it gets none),
	// then the helper's own.
	files := append([]uintptr{}, fixed[:launch.TTYSockFD]...)
	for _, fd := range []int{launch.TTYSockFD, launch.NetSockFD} {
		if passed(fixed, fd) {
			files = append(files, fixed[fd])
		} else {
			files = append(files, ^uintptr(0))
		}
	}
	files = append(files, request.Fd(), result.Fd())
	if sys.UseCgroupFD {
		files = append(files, uintptr(sys.CgroupFD))
	}
	for _, fd := range init.Files[len(fixed):] {
		req.Extra = append(req.Extra, len(files))
		files = append(files, fd)
	}
	return &syscall.ProcAttr{Env: []string{}, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}, req
}

// startThroughHelper starts the fork helper and has it fork the init with
// attr.
func (s *sysCmd) startThroughHelper(attr *syscall.ProcAttr, extra int) error {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pipe: %w", err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		closeFiles(reqR, reqW)
		return fmt.Errorf("pipe: %w", err)
	}
	defer resR.Close()
	helper, req := helperAttr(attr, reqR, resW, extra)
	err = s.start(forkStage, helper)
	closeFiles(reqR, resW)
	if err != nil {
		reqW.Close()
		return err
	}
	if err := s.handOff(req, reqW, resR); err != nil {
		close(s.release) // the helper is gone: its forking thread may go
		return err
	}
	return nil
}

// handOff sends the helper its request and reads back the init's pid. The
// request pipe stays open, holding the helper from reaping the init, until
// releaseHelper. On failure the helper is killed and reaped.
func (s *sysCmd) handOff(req forkRequest, request, result *os.File) error {
	b, err := launch.Frame(&req, "fork request")
	if err == nil {
		_, err = request.Write(b)
	}
	var res forkResult
	if err == nil {
		err = launch.ReadFrame(result, &res, "fork result")
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
	if err == nil {
		s.helperHold = request
		return nil
	}
	request.Close()
	s.pidfd = -1
	_ = unix.Kill(s.waitPid, unix.SIGKILL)
	var ws unix.WaitStatus
	for {
		if _, werr := unix.Wait4(s.waitPid, &ws, 0, nil); werr != unix.EINTR {
			break
		}
	}
	return err
}

// releaseHelper lets the helper reap the init when it ends.
func (s *sysCmd) releaseHelper() {
	if s.helperHold != nil {
		s.helperHold.Close()
		s.helperHold = nil
	}
}

// runForkHelper is the helper: it forks the init from its locked thread
// (the init's parent-death signal follows it), then lives as long as the
// init and ends as it did, so the program's Wait sees the init's end.
func runForkHelper() int {
	runtime.LockOSThread()
	// The helper stays in the program's process group. Signals to the
	// group (Ctrl-C, a service manager's stop) are the program's to pass
	// on; ignored here, they cannot end the helper and, with it, the init,
	// which handles them again itself (os/signal undoes an inherited
	// SIG_IGN).
	signal.Ignore(launch.Forwarded...)
	// The init must not inherit the helper's pipes or the cgroup, and gets
	// its ExtraFiles only where its request places them.
	_ = unix.CloseRange(helperRequestFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	request := os.NewFile(helperRequestFD, "request")
	var req forkRequest
	if err := launch.ReadFrame(request, &req, "fork request"); err != nil {
		return ExitSetup
	}
	pidfd := -1
	files := []uintptr{0, 1, 2, 3, 4, ^uintptr(0), ^uintptr(0)}
	if req.TTY {
		files[launch.TTYSockFD] = launch.TTYSockFD
	}
	if req.Net {
		files[launch.NetSockFD] = launch.NetSockFD
	}
	for _, fd := range req.Extra {
		files = append(files, uintptr(fd))
	}
	attr := &syscall.ProcAttr{
		Env:   []string{},
		Files: files,
		Sys: &syscall.SysProcAttr{Setsid: req.Setsid, Cloneflags: req.Cloneflags,
			UidMappings: req.UIDs, GidMappings: req.GIDs, AmbientCaps: req.Caps, PidFD: &pidfd},
	}
	if req.Cgroup {
		attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, helperCgroupFD
	}
	pid, err := forkExec(reexec.Self, []string{launch.InitStage}, attr)
	res := forkResult{Pid: pid}
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		res.Errno = uintptr(errno)
	}
	if b, ferr := launch.Frame(&res, "fork result"); ferr == nil {
		_, _ = os.NewFile(helperResultFD, "result").Write(b)
	}
	// The streams and pipes are the init's now: the program must see
	// them close when the init ends, not when this process does.
	_ = unix.CloseRange(0, launch.NetSockFD, 0)
	_ = unix.CloseRange(helperResultFD, ^uint(0), 0)
	if err != nil {
		return ExitSetup
	}
	// The init's pid stays its own until the program holds a pidfd on it
	// (and has put it in its v1 cgroups): it is not reaped before the
	// program closes the request pipe.
	_, _ = io.Copy(io.Discard, request)
	request.Close()
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
			break
		}
	}
	return exitAs(ws)
}

// kernelSigaction is struct sigaction as rt_sigaction(2) takes it on
// amd64 and arm64.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// exitAs ends this process as the init ended: with its exit code, or by
// its signal with the default action restored, unblocked and no core
// (signal.Reset would leave Go's handlers, which turn some signals into
// exit 2 and ignore others).
func exitAs(ws unix.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	var dfl kernelSigaction
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	var set unix.Sigset_t
	set.Val[(sig-1)/64] |= 1 << ((uint(sig) - 1) % 64)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	return 128 + int(sig)
}
