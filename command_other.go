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

// ProbeHost reports that this system has no backend yet.
func ProbeHost() Probe {
	no := ProbeItem{Detail: ErrUnsupported.Error()}
	return Probe{UserNamespaces: no, MountSetattr: no, Landlock: no, Seccomp: no, CgroupV2: no, Seatbelt: no,
		LandlockOnly: ProbeLandlockOnly{Detail: no.Detail}, RestrictedToken: ProbeRestrictedToken{Detail: no.Detail}}
}

// Resize sets the size of the payload's pseudo-terminal; there is none on
// this system.
func (c *Cmd) Resize(WindowSize) error { return errPTYNeedsLinux }
