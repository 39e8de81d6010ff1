package nsrun

import (
	"errors"

	"github.com/nsrun/nsrun/cgroup"
)

// newCgroup makes the sandbox's cgroup for p's limits; a limit the host
// cannot give is a *LimitError.
func newCgroup(p *Policy) (*cgroup.Group, error) {
	g, err := cgroup.New(cgroupLimits(p))
	return g, limitError(err)
}

// cgroupLimits are p's cgroup limits.
func cgroupLimits(p *Policy) cgroup.Limits {
	return cgroup.Limits{Memory: p.Memory, Pids: p.Pids, CPU: p.CPU}
}

// limitError turns the cgroup package's error into the library's.
func limitError(err error) error {
	var ce *cgroup.Error
	if errors.As(err, &ce) {
		return &LimitError{Option: ce.Controller, Err: ce.Err}
	}
	return err
}
