package nsrun

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// findPayload returns the payload as this process sees it. The Landlock-
// only stage that executed the payload is it; a supervisor (the stage
// with a terminal) reports its pid, which is the caller's; the init
// reports the payload's pid in the sandbox's PID namespace, which is
// found among the init's children by the NSpid of their status.
//
// An *os.Process holds a pidfd, opened by pid: it is checked after it was
// opened, so that it is never another process that took a pid freed in
// between. A payload gone before it could be found is the init's Process
// (signals to it reach what is left of the sandbox).
func (s *sysCmd) findPayload(inside int) *os.Process {
	switch {
	case s.direct && inside == 0:
		// Our own child, not reaped before Wait: its pid is its own.
		p, _ := os.FindProcess(s.pid)
		return p
	case s.direct:
		return processOf(inside, func(pid int) bool { return isPayload(pid, s.pid, inside) })
	}
	if pid := childWithNSpid(s.pid, inside); pid > 0 {
		return processOf(pid, func(pid int) bool { return isPayload(pid, s.pid, inside) })
	}
	return processOf(s.pid, func(int) bool { return s.signal(0) == nil })
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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	ppid, nspid := statusIDs(string(b))
	return ppid == parent && nspid == inside
}

// statusIDs reads PPid and the last NSpid from a /proc/PID/status.
func statusIDs(status string) (ppid, nspid int) {
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "PPid":
			ppid, _ = strconv.Atoi(f[0])
		case "NSpid":
			nspid, _ = strconv.Atoi(f[len(f)-1])
		}
	}
	return ppid, nspid
}
