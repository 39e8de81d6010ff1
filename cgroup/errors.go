package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Error is a limit the host cannot give: the controller ("memory", "pids"
// or "cpu") and why.
type Error struct {
	Controller string
	Err        error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Controller, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// neither is New's error where cgroup v2 cannot serve (why says how) and
// cgroup v1 failed with v1err. A user refused in v1 is told what would
// work, in a line short enough to read: the v1 group's full path says
// nothing the hierarchy's does not.
func neither(controller, why string, v1err error) error {
	var pe *fs.PathError
	if errors.Is(v1err, fs.ErrPermission) && errors.As(v1err, &pe) {
		return &Error{Controller: controller, Err: fmt.Errorf("%s, and this user may not make a group in cgroup v1's %s; "+
			"as a user, run nsrun in a delegated cgroup v2 subtree: systemd-run --user --scope -p Delegate=yes -- nsrun ...%w",
			why, filepath.Dir(pe.Path), silent{v1err})}
	}
	return &Error{Controller: controller, Err: fmt.Errorf("%s, and cgroup v1 failed too: %v", why, v1err)}
}

// silent wraps an error into a message without adding to its text.
type silent struct{ err error }

func (s silent) Error() string { return "" }
func (s silent) Unwrap() error { return s.err }
