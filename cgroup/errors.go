package cgroup

import "fmt"

// Error is a limit the host cannot give: the controller ("memory", "pids"
// or "cpu") and why.
type Error struct {
	Controller string
	Err        error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Controller, e.Err) }
func (e *Error) Unwrap() error { return e.Err }
