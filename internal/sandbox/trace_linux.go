package sandbox

import (
	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/seccomp"
)

// trace starts tracing the process just started (the init, or the
// Landlock-only stage), before it has its spec: it loads its filters and
// starts the payload traced. The init's own calls are not the payload's.
// hook gives what each refused call is told to; refused decides each call
// as the sandbox's filters, untraced, would.
//
// This is the one hook of --trace-denials in starting a sandbox: a stage
// that starts the payload in another way is traced the same, from nsrun,
// as long as it is seized here before it loads the filters.
func (s *Sandbox) trace(hook func() (func(ptrace.Event), error), refused func(ptrace.Syscall) (unix.Errno, bool)) error {
	report, err := hook()
	if err != nil {
		return err
	}
	name := func(nr uint64) (string, bool) { return seccomp.NativeName(nr) }
	// The init and the Landlock-only stage supervise; their own calls are
	// not the payload's.
	o := ptrace.Options{Ignore: s.pid, Name: name, Report: report, Refused: refused}
	if s.tracer, err = ptrace.Seize(s.pid, o); err != nil {
		return &Error{Code: launch.ExitSetup, Err: errs.New("%s: %w", errs.TraceDenials, err)}
	}
	return nil
}
