package nsrun

import "fmt"

// LimitError is a cgroup limit that cannot be applied on this host; the
// sandbox is not started without it.
type LimitError struct {
	Option string // "memory", "pids" or "cpu"
	Err    error
}

func (e *LimitError) Error() string { return fmt.Sprintf("%s: %v", e.Option, e.Err) }
func (e *LimitError) Unwrap() error { return e.Err }

// checkValues refuses numbers out of the range the parsers take (ParseSize,
// ParsePids, ParseCPU), however the Policy was filled.
func (p *Policy) checkValues() error {
	switch {
	case p.TmpfsSize > MaxSize:
		return &SetupError{Code: ExitSetup, Op: fmt.Sprintf("tmpfs-size %d", p.TmpfsSize), Err: errSizeAbove}
	case p.Memory > MaxSize:
		return &LimitError{Option: "memory", Err: fmt.Errorf("%d %w", p.Memory, errSizeAbove)}
	case p.Pids > MaxPids:
		return &LimitError{Option: "pids", Err: fmt.Errorf("%d: %w", p.Pids, errPidsRange)}
	case p.CPU != 0 && !validCPU(p.CPU):
		return &LimitError{Option: "cpu", Err: fmt.Errorf("%g: %w", p.CPU, errCPURange)}
	}
	return nil
}
