//go:build !linux && !darwin && !windows

package nsrun

import "os"

// sysCmd marks a Cmd as started.
type sysCmd struct{}

func (c *Cmd) backend() string { return "" }

func (c *Cmd) stopper() stopper { return nil }

// start returns ErrUnsupported: this system has no backend yet.
func (c *Cmd) start() error {
	c.report.notBuilt(c.backend(), ErrUnsupported)
	return ErrUnsupported
}

func (c *Cmd) wait() (*ExitError, error) { return &ExitError{Code: ExitSetup}, ErrUnsupported }

// Signal returns ErrUnsupported.
func (c *Cmd) Signal(os.Signal) error { return ErrUnsupported }
