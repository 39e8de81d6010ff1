package nsrun

import (
	"syscall"

	"github.com/nsrun/nsrun/internal/launch"
)

// setupErrorOf is the SetupError a stage's error message stands for: its
// text, and its errno as the cause.
func setupErrorOf(m launch.Msg) *SetupError {
	e := &SetupError{Code: m.Code, Msg: m.Msg}
	if m.Errno != 0 {
		e.Err = syscall.Errno(m.Errno)
	}
	return e
}
