package cgroup

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// ForkExec is syscall.ForkExec for a child that attr may ask to be born in
// a cgroup v2 (CLONE_INTO_CGROUP, which Go starts with clone3). Where
// clone3 is refused with ENOSYS, as Docker's default seccomp profile does
// without CAP_SYS_ADMIN, the child is started without it, with movedIn
// added to its arguments, and moved into the cgroup before ForkExec
// returns. The child must therefore do nothing that is the sandbox's
// until its parent lets it go: nsrun's init waits for its spec, and so
// does the Landlock-only stage told it was moved in before it forks. On a
// failed move the child is killed and reaped.
func ForkExec(argv0 string, argv []string, attr *syscall.ProcAttr, movedIn ...string) (int, error) {
	pid, err := syscall.ForkExec(argv0, argv, attr)
	if !Clone3Refused(attr.Sys, err) {
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
	if err := MoveFD(attr.Sys.CgroupFD, pid); err != nil {
		endChild(pid, sys.PidFD)
		return 0, fmt.Errorf("clone3 is refused (ENOSYS), so the child could not be started in its cgroup: %w", err)
	}
	return pid, nil
}

// Clone3Refused reports whether err is clone3 answered with ENOSYS for a
// child asked to be born in a cgroup.
func Clone3Refused(sys *syscall.SysProcAttr, err error) bool {
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
