package sandbox

import (
	"syscall"

	"github.com/nsrun/nsrun/internal/launch"
)

// errorOf is the Error a stage's error message stands for: its status and
// text, and its errno as the cause.
func errorOf(m launch.Msg) *Error {
	e := &Error{Code: m.Code, Msg: m.Msg}
	if m.Errno != 0 {
		e.Err = syscall.Errno(m.Errno)
	}
	return e
}
