//go:build !linux

package nsrun

import "os"

type sysCmd struct{}

// Start returns ErrUnsupported: this system has no backend yet.
func (c *Cmd) Start() error {
	c.report = Report{Version: 1, Enforcement: "none", Error: ErrUnsupported.Error()}
	return ErrUnsupported
}

// Wait returns ErrUnsupported.
func (c *Cmd) Wait() error { return ErrUnsupported }

// Signal returns ErrUnsupported.
func (c *Cmd) Signal(os.Signal) error { return ErrUnsupported }
