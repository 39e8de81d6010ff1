package nsrun

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/pty"
)

// ttySockFD is the init's end of the socket it sends its pty's master to
// nsrun over, when the spec asks for a terminal.
const ttySockFD = 5

// sandboxTTY is the sandbox's pseudo-terminal as its init holds it: the
// slave, its controlling terminal, on which it moves the payload between
// foreground and background as nsrun's own job moves.
type sandboxTTY struct {
	slave   *os.File
	streams uint8
	fg      bool
	away    int // the pty's foreground group before nsrun went to the background
}

// openSandboxTTY allocates the pty in the sandbox's devpts instance (so it
// is /dev/pts/0, which /dev/console names), gives it the caller terminal's
// modes and size, makes it the init's controlling terminal and sends the
// master to nsrun. The init must be a session leader without a terminal.
func openSandboxTTY(spec *ttySpec) (*sandboxTTY, error) {
	master, slave, err := pty.Open("/dev/ptmx")
	if err != nil {
		return nil, fmt.Errorf("the sandbox's terminal: %w", err)
	}
	defer master.Close()
	fail := func(err error) (*sandboxTTY, error) {
		slave.Close()
		return nil, fmt.Errorf("the sandbox's terminal: %w", err)
	}
	if n, err := pty.Index(master); err != nil || n != 0 {
		if err == nil {
			err = fmt.Errorf("it is pts/%d, not the pts/0 /dev/console names", n)
		}
		return fail(err)
	}
	if len(spec.Mode) > 0 {
		m, err := pty.DecodeMode(spec.Mode)
		if err == nil {
			err = pty.SetMode(int(slave.Fd()), &m)
		}
		if err != nil {
			return fail(fmt.Errorf("set modes: %w", err))
		}
	}
	if spec.Rows != 0 || spec.Cols != 0 {
		if err := pty.SetSize(int(slave.Fd()), spec.Rows, spec.Cols); err != nil {
			return fail(fmt.Errorf("set size: %w", err))
		}
	}
	if err := unix.IoctlSetInt(int(slave.Fd()), unix.TIOCSCTTY, 0); err != nil {
		return fail(fmt.Errorf("TIOCSCTTY: %w", err))
	}
	err = pty.SendFD(ttySockFD, master)
	unix.Close(ttySockFD)
	if err != nil {
		return fail(err)
	}
	return &sandboxTTY{slave: slave, streams: spec.Streams, fg: spec.Foreground}, nil
}

// payloadAttr gives the payload the slave for its replaced streams, a
// process group of its own, and the pty's foreground if nsrun had the
// caller's.
func (t *sandboxTTY) payloadAttr(attr *syscall.ProcAttr) {
	for i := range attr.Files[:3] {
		if t.streams&(1<<i) != 0 {
			attr.Files[i] = t.slave.Fd()
		}
	}
	// Foreground takes a descriptor of this process (it acts before the
	// child's descriptors are arranged).
	attr.Sys.Setpgid, attr.Sys.Foreground, attr.Sys.Ctty = true, t.fg, int(t.slave.Fd())
}

// control applies a ctl byte from nsrun and continues the payload's group:
// to the background, the pty's foreground goes to the init's own group (a
// program of the payload's that then reads the pty is stopped by SIGTTIN,
// which nsrun passes on to the caller's shell); to the foreground, it goes
// back where it was, unless the payload took it meanwhile, and the
// foreground group is told to redraw.
func (t *sandboxTTY) control(b byte, payload int) {
	fd := int(t.slave.Fd())
	own := unix.Getpgrp()
	cur, err := pty.ForegroundOf(fd)
	switch b {
	case ctlForeground:
		if err == nil && cur == own {
			target := payload
			if t.away > 0 {
				target = t.away
			}
			if setForeground(fd, target) != nil {
				_ = setForeground(fd, payload)
			}
		}
		t.away = 0
	case ctlBackground:
		if err == nil && cur != own {
			t.away = cur
			_ = setForeground(fd, own)
		}
	}
	_ = unix.Kill(-payload, unix.SIGCONT)
	if b == ctlForeground {
		if fg, err := pty.ForegroundOf(fd); err == nil && fg != own {
			_ = unix.Kill(-fg, unix.SIGWINCH)
		}
	}
}

// setForeground makes pgrp the foreground of the terminal tty, from a
// process of its session that may be in the background.
func setForeground(tty, pgrp int) error {
	var err error
	withSIGTTOUBlocked(func() { err = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, pgrp) })
	return err
}

// superviseStage runs the payload of a Landlock-only sandbox that has a
// terminal: as the pty's session leader (nsrun made it one), the stage
// forks the payload instead of becoming it, so that the payload's process
// group is not orphaned (the kernel discards Ctrl-Z for an orphaned group)
// and can be moved to the pty's background, as the init does. It forks
// from the thread that holds the Landlock domain, the seccomp filter and
// no capabilities, and is not dumpable, so the payload can neither trace
// it nor open its descriptors.
func superviseStage(spec *initSpec, path string, status *os.File, sigs <-chan os.Signal) int {
	fail := func(code int, err error) int {
		send(status, failure(code, err))
		return code
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_DUMPABLE: %w", err))
	}
	slave := -1
	for i := 0; i < 3; i++ {
		if spec.TTY.Streams&(1<<i) != 0 {
			slave = i
			break
		}
	}
	if slave < 0 {
		return fail(ExitSetup, fmt.Errorf("the sandbox's terminal is none of its streams"))
	}
	term := &sandboxTTY{slave: os.NewFile(uintptr(slave), "pty slave"), streams: spec.TTY.Streams, fg: spec.TTY.Foreground}
	attr := &syscall.ProcAttr{Env: spec.Env, Files: payloadFiles([]uintptr{0, 1, 2}, spec.ExtraFiles),
		// No PID namespace ends it: it dies with the stage.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	term.payloadAttr(attr)
	pid, err := syscall.ForkExec(path, spec.Args, attr)
	if err != nil {
		err = fmt.Errorf("exec %s: %w", spec.Args[0], err)
		return fail(execCode(err), err)
	}
	closeExtraFiles(spec.ExtraFiles)
	send(status, initMsg{Kind: msgStarted, Pid: pid})
	return supervise(pid, term, status, sigs)
}
