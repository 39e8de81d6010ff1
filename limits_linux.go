package nsrun

import (
	"errors"

	"github.com/nsrun/nsrun/cgroup"
)

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
