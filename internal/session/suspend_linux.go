package session

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/pty"
)

// Ctrl-Z in nsrun exec --tty. A command with a pty of its own leads the
// pty's session (the init made it so: the init is outside the pty's
// session, so it cannot lead it). A process group whose leader leads the
// session is orphaned, and the kernel drops the SIGTSTP the pty sends it:
// Ctrl-Z would do nothing to a command that is not a shell. A one-shot
// --tty run stops (payload and nsrun, as a job of the caller's shell);
// nsrun exec does the same itself: when the suspend key reaches a command
// that the pty could not stop, the client stops the command's process
// group (SIGSTOP), gives the caller's terminal back and stops itself with
// SIGTSTP; once continued it takes the terminal again and continues the
// command. A shell inside, whose jobs are not orphaned, stops its
// foreground job by itself, and the key passes on.

// Suspend says what the suspend key does when typed into the command's
// pty.
type Suspend int

const (
	SuspendPass Suspend = iota // the key goes to the pty, which does what it does
	SuspendStop                // the client stops the command and itself
)

// suspendFacts are what decideSuspend weighs.
type suspendFacts struct {
	key        bool // the byte typed is the pty's suspend key, with ISIG on
	leaderFG   bool // the pty's foreground group is its session leader's (orphaned)
	handles    bool // that leader ignores or catches SIGTSTP (a shell at its prompt, an editor)
	jobControl bool // the caller's terminal is the client's controlling one, its group not orphaned
}

// decideSuspend is the decision: only a key the pty would send SIGTSTP
// for, to a group that cannot stop and does not handle it, from a client
// that its own shell can stop and continue.
func decideSuspend(f suspendFacts) Suspend {
	if f.key && f.leaderFG && !f.handles && f.jobControl {
		return SuspendStop
	}
	return SuspendPass
}

// FindSuspend returns the index in keys, typed by the caller into the
// pty of master, of a suspend key on which the client stops the command
// and itself; -1 if the keys all pass on. callerTTY is the caller's
// terminal (the client's stdin).
func FindSuspend(master *os.File, callerTTY int, keys []byte) int {
	m, err := unix.IoctlGetTermios(int(master.Fd()), unix.TCGETS) // the slave's modes
	if err != nil || m.Lflag&unix.ISIG == 0 || m.Cc[unix.VSUSP] == 0 {
		return -1
	}
	i := bytes.IndexByte(keys, m.Cc[unix.VSUSP])
	if i < 0 {
		return -1
	}
	f := suspendFacts{key: true, jobControl: jobControl(callerTTY)}
	fg, err1 := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPGRP)
	sid, err2 := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGSID)
	f.leaderFG = err1 == nil && err2 == nil && fg == sid && fg > 0
	if f.leaderFG {
		f.handles = handlesTSTP(fg)
	}
	if decideSuspend(f) == SuspendStop {
		return i
	}
	return -1
}

// jobControl says whether the caller's shell can stop and continue this
// process: tty is its controlling terminal, with this process's group in
// the foreground, and the group is not orphaned (its parent is in another
// group of the same session), else the kernel would drop its SIGTSTP.
func jobControl(tty int) bool {
	if !pty.IsControlling(tty) {
		return false
	}
	if fg, err := pty.ForegroundOf(tty); err != nil || fg != unix.Getpgrp() {
		return false
	}
	ppid := unix.Getppid()
	psid, err1 := unix.Getsid(ppid)
	sid, err2 := unix.Getsid(0)
	ppgrp, err3 := unix.Getpgid(ppid)
	return err1 == nil && err2 == nil && err3 == nil && psid == sid && ppgrp != unix.Getpgrp()
}

// handlesTSTP says whether process pid ignores or catches SIGTSTP.
func handlesTSTP(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return true // unknown: leave the key to the pty
	}
	bit := uint64(1) << (uint(unix.SIGTSTP) - 1)
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k != "SigIgn" && k != "SigCgt" {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil || mask&bit != 0 {
			return true
		}
	}
	return false
}
