package plan

import (
	"fmt"

	"github.com/nsrun/nsrun/internal/errs"
)

// ErrorKind says which public error the root package raises a planning
// failure into.
type ErrorKind int

const (
	// KindSetup is a sandbox that cannot be built as asked.
	KindSetup ErrorKind = iota
	// KindSeccomp is a seccomp profile that cannot be read or compiled.
	KindSeccomp
	// KindDir is a working directory (Path, as given) that cannot be used.
	KindDir
	// KindRule is a rule (Rule) that cannot be applied.
	KindRule
	// KindIsolation is a setting (Setting, or the option of Rule) that
	// needs namespaces, in a sandbox without them.
	KindIsolation
	// KindNet is a network setting (Setting, with Value at fault) that
	// cannot be applied.
	KindNet
)

// Error is a planning failure: Op names the step, Msg (when set) is the
// whole message, Path the file it concerns.
type Error struct {
	Kind ErrorKind
	Op   string
	Msg  string
	Path string
	Rule *Rule
	// Setting names the setting at fault (KindIsolation, KindNet), as the
	// command line names it; Value is the value at fault, if one is.
	Setting, Value string
	Err            error
}

func (e *Error) Error() string {
	if e.Kind == KindNet && e.Msg == "" && e.Setting != "" {
		if e.Value != "" {
			return fmt.Sprintf("%s %q: %v", e.Setting, e.Value, e.Err)
		}
		return fmt.Sprintf("%s: %v", e.Setting, e.Err)
	}
	return errs.Step(e.Op, e.Msg, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
