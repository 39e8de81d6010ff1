package sandbox

// The fork helper's protocol and the clone3 fallback, as the root package
// has them for the helper's own half (runForkHelper) until that moves into
// internal/launch and the fallback into package cgroup; this file goes
// then, and the parent half uses theirs.

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
)

// forkStage is the fork helper's stage name.
const forkStage = "nsrun-fork"

// The helper's descriptors after the init's 0–6, which it passes on (5,
// the pty's socket, only when the sandbox has a terminal; 6, the network
// socket, only when its network is filtered); the init's ExtraFiles come
// after the helper's own, where the request says.
const (
	helperRequestFD = 7 // forkRequest
	helperResultFD  = 8 // forkResult
	helperCgroupFD  = 9 // the cgroup v2 directory the init is born in, if any
)

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

// forkExec is syscall.ForkExec for a child that attr may ask to be born in
// a cgroup v2 (CLONE_INTO_CGROUP, which Go starts with clone3). Where
// clone3 is refused with ENOSYS, as Docker's default seccomp profile does
// without CAP_SYS_ADMIN, the child is started without it, with movedIn
// added to its arguments, and moved into the cgroup before forkExec
// returns. The child must therefore do nothing that is the sandbox's
// until its parent lets it go: the init waits for its spec, and so does
// the Landlock-only stage told launch.StageMovedIn before it forks. On a
// failed move the child is killed and reaped.
func forkExec(argv0 string, argv []string, attr *syscall.ProcAttr, movedIn ...string) (int, error) {
	pid, err := syscall.ForkExec(argv0, argv, attr)
	if !clone3Refused(attr.Sys, err) {
		return pid, err
	}
	sys := *attr.Sys
	sys.UseCgroupFD = false
	plain := *attr
	plain.Sys = &sys
	argv = append(argv[:len(argv):len(argv)], movedIn...)
	if pid, err = syscall.ForkExec(argv0, argv, &plain); err != nil {
		return pid, err
	}
	if err := cgroup.MoveFD(attr.Sys.CgroupFD, pid); err != nil {
		endChild(pid, sys.PidFD)
		return 0, fmt.Errorf("clone3 is refused (ENOSYS), so the child could not be started in its cgroup: %w", err)
	}
	return pid, nil
}

// clone3Refused reports whether err is clone3 answered with ENOSYS for a
// child asked to be born in a cgroup.
func clone3Refused(sys *syscall.SysProcAttr, err error) bool {
	return sys != nil && sys.UseCgroupFD && errors.Is(err, syscall.ENOSYS)
}

// endChild kills and reaps a child that must not run, and closes its
// pidfd.
func endChild(pid int, pidfd *int) {
	_ = unix.Kill(pid, unix.SIGKILL)
	for {
		if _, err := unix.Wait4(pid, nil, 0, nil); err != unix.EINTR {
			break
		}
	}
	if pidfd != nil && *pidfd >= 0 {
		unix.Close(*pidfd)
		*pidfd = -1
	}
}
