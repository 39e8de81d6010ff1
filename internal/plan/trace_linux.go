package plan

import (
	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/seccomp"
)

// traceProgram is the filter of --trace-denials: it stops the payload
// at the calls that can be refused (ptrace.Calls) for nsrun's tracer to
// look at their results, and allows everything else. It refuses nothing
// itself; without a tracer its calls fail with ENOSYS.
func traceProgram() (seccomp.Program, error) {
	prof := seccomp.Profile{Name: "trace-denials", DefaultAction: seccomp.Action{Kind: seccomp.ActAllow}}
	for _, c := range ptrace.Calls() {
		r := seccomp.Rule{Names: []string{c.Name}, Action: seccomp.Action{Kind: seccomp.ActTrace, Errno: ptrace.ObserveData}}
		if c.NonZero >= 0 {
			r.Args = []seccomp.Arg{{Index: uint(c.NonZero), Op: seccomp.OpNE, Value: 0}}
		}
		prof.Rules = append(prof.Rules, r)
	}
	compiled, err := seccomp.Compile(prof)
	if err != nil {
		return nil, &Error{Err: errs.New("%s filter: %w", errs.TraceDenials, err)}
	}
	return compiled.Program, nil
}

// TracedFilters makes spec's seccomp programs those of a traced sandbox
// and returns them as they were, oldest first, for the tracer to decide
// by. Each refusal becomes a trace (seccomp.Traced): a trap would send
// the payload a SIGSYS, which its own handlers, masks and signals would
// see, and an errno would never reach the tracer. The kernel takes the
// strictest action of stacked filters, and a user notification outranks a
// trace where untraced an errno outranks it:
//   - the program that notifies (the Landlock-only supervisor's, the
//     guard's listen()) gets the others' refusals ahead of it
//     (seccomp.Ahead), so the supervisor never takes a call they refuse;
//   - where none does, the first program is loaded with a listener the
//     init keeps (Spec.HoldListener): the kernel allows one per task tree,
//     and a filter of the payload's that notified could let a refused
//     call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
//
// The trace filter, which only observes, is loaded first; the tracer
// decides each stop by the untraced programs, whichever value wins.
func TracedFilters(spec *launch.Spec) ([]seccomp.Program, error) {
	var untraced []seccomp.Program
	if spec.Supervisor != nil {
		untraced = append(untraced, spec.Supervisor.Filter)
	}
	untraced = append(untraced, spec.Seccomp...)
	notifier := -1
	loaded := make([]seccomp.Program, len(untraced))
	for i, prog := range untraced {
		if err := prog.Check(); err != nil {
			return nil, &Error{Err: errs.New("%s: %w", errs.TraceDenials, err)}
		}
		if seccomp.Notifies(prog) {
			notifier = i
		}
		var err error
		if loaded[i], err = seccomp.Traced(prog); err != nil {
			return nil, &Error{Err: errs.New("%s: %w", errs.TraceDenials, err)}
		}
	}
	if notifier >= 0 {
		var ahead []seccomp.Program
		for i := len(loaded) - 1; i >= 0; i-- {
			if i != notifier {
				ahead = append(ahead, loaded[i])
			}
		}
		prog, err := seccomp.Ahead(loaded[notifier], ahead...)
		if err != nil {
			return nil, &Error{Err: errs.New("%s: %w", errs.TraceDenials, err)}
		}
		loaded[notifier] = prog
	}
	observe, err := traceProgram()
	if err != nil {
		return nil, err
	}
	if spec.Supervisor != nil {
		spec.Supervisor.Filter, loaded = loaded[0], loaded[1:]
	}
	spec.Seccomp = append([]seccomp.Program{observe}, loaded...)
	spec.HoldListener = notifier < 0
	return untraced, nil
}

// RefusedBy says whether filters, loaded in that order, refuse a call and
// with which errno: what the payload gets untraced. A trace is refused with
// ENOSYS, as the kernel refuses it without a tracer; the actions that
// outrank a trace (a kill, a trap, a notification) never reach the tracer,
// and are refused with ENOSYS should one do.
func RefusedBy(filters []seccomp.Program) func(ptrace.Syscall) (unix.Errno, bool) {
	return func(c ptrace.Syscall) (unix.Errno, bool) {
		d := seccomp.Data{NR: int32(c.NR), Arch: c.Arch, IP: c.IP, Args: c.Args}
		switch a := seccomp.ActionOf(seccomp.Decide(filters, d)); a.Kind {
		case seccomp.ActAllow, seccomp.ActLog:
			return 0, false
		case seccomp.ActErrno:
			return unix.Errno(a.Errno), true
		}
		return unix.ENOSYS, true
	}
}

// RefusalEvent is what the Landlock-only supervisor failed for the
// payload, as the tracer would have seen it (a user notification outranks
// a trace, so it never does), for the judge; false for a call this
// architecture does not name.
func RefusalEvent(r supervise.Refusal) (ptrace.Event, bool) {
	name, ok := seccomp.NativeName(uint64(r.NR))
	if !ok {
		return ptrace.Event{}, false
	}
	ev := ptrace.Event{Tid: r.Pid, Pid: r.Pid, Call: name, Errno: unix.Errno(r.Errno)}
	copy(ev.Args[:], r.Args)
	if r.Path != "" {
		ev.Paths = []string{r.Path}
	}
	return ev, true
}
