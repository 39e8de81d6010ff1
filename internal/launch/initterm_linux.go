package launch

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/pty"
)

// TTYSockFD is the init's end of the socket it sends its pty's master to
// nsrun over, when the spec asks for a terminal.
const TTYSockFD = 5

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
func openSandboxTTY(spec *TTYSpec) (*sandboxTTY, error) {
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
	err = pty.SendFD(TTYSockFD, master)
	unix.Close(TTYSockFD)
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
	case CtlForeground:
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
	case CtlBackground:
		if err == nil && cur != own {
			t.away = cur
			_ = setForeground(fd, own)
		}
	}
	_ = unix.Kill(-payload, unix.SIGCONT)
	if b == CtlForeground {
		if fg, err := pty.ForegroundOf(fd); err == nil && fg != own {
			_ = unix.Kill(-fg, unix.SIGWINCH)
		}
	}
}

// setForeground makes pgrp the foreground of the terminal tty, from a
// process of its session that may be in the background.
func setForeground(tty, pgrp int) error {
	var err error
	pty.WithSIGTTOUBlocked(func() { err = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, pgrp) })
	return err
}
