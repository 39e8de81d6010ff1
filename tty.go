package nsrun

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/nsrun/nsrun/internal/errs"
)

// TTYMode says whether a sandbox's payload gets a pseudo-terminal of its
// own (Linux).
type TTYMode int

const (
	// TTYAuto gives the payload a pseudo-terminal of its own when Stdin,
	// Stdout or Stderr is a terminal (an *os.File): each of them that is a
	// terminal becomes the pty's slave, the others stay as they are, and
	// nsrun relays between the terminal and the pty. It is the zero value.
	TTYAuto TTYMode = iota
	// TTYAlways gives the payload a pseudo-terminal whatever the streams
	// are: all three are the pty's slave, Stdin is relayed into it (keys
	// from a terminal; other input as typed lines, ended by the pty's EOF
	// character), and what the payload writes goes to Stdout.
	TTYAlways
	// TTYNever passes the streams as they are, in a session of its own
	// with no controlling terminal (no job control inside): for callers
	// that pipe.
	TTYNever
)

func (m TTYMode) String() string {
	switch m {
	case TTYAuto:
		return "auto"
	case TTYAlways:
		return "always"
	case TTYNever:
		return "never"
	}
	return fmt.Sprintf("TTYMode(%d)", int(m))
}

// ParseTTYMode reads auto, always or never.
func ParseTTYMode(s string) (TTYMode, error) {
	for _, m := range []TTYMode{TTYAuto, TTYAlways, TTYNever} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, errors.New("want auto, always or never")
}

// WindowSize is a terminal's size in character cells.
type WindowSize struct {
	Rows, Cols uint16
}

// checkTTYMode refuses a mode this package does not know.
func checkTTYMode(m TTYMode) error {
	if m < TTYAuto || m > TTYNever {
		return &SetupError{Code: ExitSetup, Msg: fmt.Sprintf("tty: unknown mode %d", int(m))}
	}
	return nil
}

// errPTYNeedsLinux says this system's backend gives no private
// pseudo-terminal.
var errPTYNeedsLinux = errors.New("a private pseudo-terminal needs Linux")

// ttyCheck refuses a mode this package does not know, and TTYAlways where
// the backend cannot give it (every system but Linux): there the payload
// gets the streams as they are.
func ttyCheck(m TTYMode) error {
	if err := checkTTYMode(m); err != nil {
		return err
	}
	if m == TTYAlways && runtime.GOOS != "linux" {
		return &SetupError{Code: ExitSetup, Err: errs.New("%s: %w", errs.TTYAlways, errPTYNeedsLinux)}
	}
	return nil
}
