package launch

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/reexec"
)

// ForkStage is the fork helper: a fresh small process that forks the init
// for a program too large to fork it cheaply itself (copying a large
// program's page tables costs more than starting this), reports the
// init's pid, waits for it and ends as it ended.
const ForkStage = "nsrun-fork"

// The helper's descriptors after the init's 0–6, which it passes on (5,
// the pty's socket, only when the sandbox has a terminal; 6, the network
// socket, only when its network is filtered); the init's ExtraFiles come
// after the helper's own, where the request says.
const (
	HelperRequestFD = 7 // ForkRequest
	HelperResultFD  = 8 // ForkResult
	HelperCgroupFD  = 9 // the cgroup v2 directory the init is born in, if any
)

// ForkRequest is what the helper needs to fork the init as Start would.
type ForkRequest struct {
	Cloneflags uintptr
	UIDs, GIDs []syscall.SysProcIDMap
	Caps       []uintptr // the init's ambient capabilities
	Setsid     bool
	Cgroup     bool
	TTY        bool  // the init gets descriptor TTYSockFD too
	Net        bool  // the init gets descriptor NetSockFD too
	Extra      []int // the helper's descriptors the init gets next, in order
}

// ForkResult is the init's pid, or the errno of the failed fork.
type ForkResult struct {
	Pid   int
	Errno uintptr
}

// RunForkHelper is the helper: it forks the init from its locked thread
// (the init's parent-death signal follows it), then lives as long as the
// init and ends as it did, so the program's Wait sees the init's end.
func RunForkHelper() int {
	runtime.LockOSThread()
	// The helper stays in the program's process group. Signals to the
	// group (Ctrl-C, a service manager's stop) are the program's to pass
	// on; ignored here, they cannot end the helper and, with it, the init,
	// which handles them again itself (os/signal undoes an inherited
	// SIG_IGN).
	signal.Ignore(Forwarded...)
	// The init must not inherit the helper's pipes or the cgroup, and gets
	// its ExtraFiles only where its request places them.
	_ = unix.CloseRange(HelperRequestFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	request := os.NewFile(HelperRequestFD, "request")
	var req ForkRequest
	if err := ReadFrame(request, &req, "fork request"); err != nil {
		return ExitSetup
	}
	pidfd := -1
	files := []uintptr{0, 1, 2, 3, 4, ^uintptr(0), ^uintptr(0)}
	if req.TTY {
		files[TTYSockFD] = TTYSockFD
	}
	if req.Net {
		files[NetSockFD] = NetSockFD
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
		attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, HelperCgroupFD
	}
	pid, err := cgroup.ForkExec(reexec.Self, []string{InitStage}, attr)
	res := ForkResult{Pid: pid}
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		res.Errno = uintptr(errno)
	}
	if b, ferr := Frame(&res, "fork result"); ferr == nil {
		_, _ = os.NewFile(HelperResultFD, "result").Write(b)
	}
	// The streams and pipes are the init's now: the program must see
	// them close when the init ends, not when this process does.
	_ = unix.CloseRange(0, NetSockFD, 0)
	_ = unix.CloseRange(HelperResultFD, ^uint(0), 0)
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
