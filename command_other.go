//go:build !linux && !darwin && !windows

package nsrun

import (
	"errors"
	"os"
)

// sysCmd marks a Cmd as started.
type sysCmd struct{}

// Start returns ErrUnsupported: this system has no backend yet.
func (c *Cmd) Start() error {
	if c.sys != nil {
		return errors.New("nsrun: Start called twice")
	}
	c.sys = &sysCmd{}
	c.report = Report{Version: 1, Enforcement: "none", Error: ErrUnsupported.Error(), Exit: ExitReport{Code: ExitSetup}}
	return ErrUnsupported
}

// Wait returns ErrUnsupported.
func (c *Cmd) Wait() error { return ErrUnsupported }

// Signal returns ErrUnsupported.
func (c *Cmd) Signal(os.Signal) error { return ErrUnsupported }
