package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
)

// A program forks the init with its whole address space: Go cannot vfork
// a child that gets a new user namespace (the parent writes the child's
// uid/gid maps while the child waits), so the fork copies the program's
// page tables and leaves its heap copy-on-write. That costs ≈ 0.05 ms per
// MiB resident here (a server holding 512 MiB: 42 ms a launch instead of
// 10). Above ForkHelperMiB resident, Fork vforks the fork helper instead
// (launch.ForkStage), a fresh small process that forks the init, reports
// its pid, waits for it and ends as it ended; its own start (≈ 2 ms) does
// not grow with the heap.
const ForkHelperMiB = 64

// passed reports whether files gives the child descriptor fd.
func passed(files []uintptr, fd int) bool {
	return len(files) > fd && files[fd] != ^uintptr(0)
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
	if err != nil || pages*uint64(os.Getpagesize()) <= ForkHelperMiB<<20 {
		return ""
	}
	return fmt.Sprintf("over %d MiB resident", ForkHelperMiB)
}

// helperAttr turns the init's attributes into the helper's: the same
// descriptors plus the request and result pipes (and the cgroup), no
// namespaces, so the program vforks it; the request carries the rest. The
// last extra of the init's descriptors are its ExtraFiles.
func helperAttr(init *syscall.ProcAttr, request, result *os.File, extra int) (*syscall.ProcAttr, launch.ForkRequest) {
	sys := init.Sys
	fixed := init.Files[:len(init.Files)-extra]
	req := launch.ForkRequest{Cloneflags: sys.Cloneflags, UIDs: sys.UidMappings, GIDs: sys.GidMappings, Caps: sys.AmbientCaps,
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
func (s *Sandbox) startThroughHelper(attr *syscall.ProcAttr, extra int) error {
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
	err = s.start(launch.ForkStage, helper)
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
func (s *Sandbox) handOff(req launch.ForkRequest, request, result *os.File) error {
	b, err := launch.Frame(&req, "fork request")
	if err == nil {
		_, err = request.Write(b)
	}
	var res launch.ForkResult
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
func (s *Sandbox) releaseHelper() {
	if s.helperHold != nil {
		s.helperHold.Close()
		s.helperHold = nil
	}
}
