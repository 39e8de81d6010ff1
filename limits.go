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
