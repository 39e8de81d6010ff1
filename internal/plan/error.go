package plan

import "github.com/nsrun/nsrun/internal/errs"

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
)

// Error is a planning failure: Op names the step, Msg (when set) is the
// whole message, Path the file it concerns.
type Error struct {
	Kind    ErrorKind
	Op      string
	Msg     string
	Path    string
	Rule    *Rule
	Setting string
	Err     error
}

func (e *Error) Error() string {
	return errs.Step(e.Op, e.Msg, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
