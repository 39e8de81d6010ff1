package sandbox

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/procfs"
)

// findPayload returns the payload as this process sees it. The Landlock-
// only stage reports its pid, which is the caller's; the init reports the
// payload's pid in the sandbox's PID namespace and holds a pidfd of it, which this process takes (pidfd_getfd) and asks for the
// pid here. Where that is refused (a container's seccomp profile), the
// payload is found among the init's children by the NSpid of their
// status, which costs the kernel more (~1 ms a launch: it makes and later
// flushes /proc entries of processes that live for a moment). Either way
// the payload is there to be found, a zombie if it has ended: the
// supervisor reaps nothing before ctlStarted.
//
// An *os.Process holds a pidfd, opened by pid: it is checked after it was
// opened, so that it is never another process that took a pid freed in
// between. Should the payload not be found, Process is the init (signals
// to it reach the payload or end the sandbox).
func (s *Sandbox) findPayload(msg launch.Msg) *os.Process {
	inside := msg.Pid
	if s.direct {
		return processOf(inside, func(pid int) bool { return isPayload(pid, s.pid, inside) })
	}
	if msg.Code > 0 && s.pidfd >= 0 {
		if fd, err := unix.PidfdGetfd(s.pidfd, msg.Code, 0); err == nil {
			defer unix.Close(fd)
			if pid := pidOf(fd); pid > 0 {
				return processOf(pid, func(int) bool { return unix.PidfdSendSignal(fd, 0, nil, 0) == nil })
			}
		}
	}
	if pid := childWithNSpid(s.pid, inside); pid > 0 {
		return processOf(pid, func(pid int) bool { return isPayload(pid, s.pid, inside) })
	}
	return processOf(s.pid, func(int) bool { return s.signal(0) == nil })
}

// pidOf is the pid in this process's PID namespace of the process pidfd
// refers to, or 0 when it has ended or cannot be told.
func pidOf(pidfd int) int {
	info := unix.PidfdInfo{Mask: unix.PIDFD_INFO_PID}
	err := unix.IoctlPidfdInfo(pidfd, &info)
	if err == nil && info.Mask&unix.PIDFD_INFO_PID != 0 {
		return int(info.Pid)
	}
	if errors.Is(err, unix.ESRCH) {
		return 0
	}
	// Before Linux 6.13: the descriptor's fdinfo says it (-1 once ended).
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return max(pid, 0)
		}
	}
	return 0
}

// processOf returns a Process for pid that is known to be the process is
// vouches for: is is asked after the Process took its pidfd, and a
// Process still alive then has had the pid all along. One that is someone
// else's is released, so that it signals nothing.
func processOf(pid int, is func(int) bool) *os.Process {
	p, _ := os.FindProcess(pid) // never fails on Linux
	if !is(pid) && p.Signal(syscall.Signal(0)) == nil {
		_ = p.Release()
		p.Pid = pid
	}
	return p
}

// childWithNSpid is the child of init (a pid of this process's namespace)
// whose pid in the innermost namespace is inside, or 0. The init's
// children are the payload and orphans it adopted; the payload has just
// started, so there is one child in all but rare cases.
func childWithNSpid(init, inside int) int {
	dir := "/proc/" + strconv.Itoa(init) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && isPayload(pid, init, inside) {
				return pid
			}
		}
	}
	return 0
}

// isPayload says whether pid is now a child of parent whose innermost pid
// is inside.
func isPayload(pid, parent, inside int) bool {
	st, err := procfs.ReadStatus(pid)
	if err != nil {
		return false
	}
	ppid, _ := st.Int("PPid", false)
	nspid, _ := st.Int("NSpid", true)
	return ppid == parent && nspid == inside
}
