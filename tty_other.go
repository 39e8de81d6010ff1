//go:build !linux

package nsrun

import "errors"

// errNoPTY says this system's backend gives no private pseudo-terminal.
var errNoPTY = errors.New("a private pseudo-terminal needs Linux")

// Resize sets the size of the payload's pseudo-terminal; there is none on
// this system.
func (c *Cmd) Resize(WindowSize) error { return errNoPTY }

// ttyCheck refuses TTYAlways, which this backend cannot give: the payload
// gets the streams as they are.
func (c *Cmd) ttyCheck() error {
	if err := checkTTYMode(c.TTY); err != nil {
		return err
	}
	if c.TTY == TTYAlways {
		return &SetupError{Code: ExitSetup, Msg: "--tty always: " + errNoPTY.Error()}
	}
	return nil
}
