package nsrun

import (
	"math"

	"golang.org/x/sys/unix"

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
		return nil, &SetupError{Code: ExitSetup, Msg: "--trace-denials filter: " + err.Error()}
	}
	return compiled.Program, nil
}

// tracedFilters makes spec's seccomp programs those of a traced sandbox
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
func tracedFilters(spec *launch.Spec) ([]seccomp.Program, error) {
	var untraced []seccomp.Program
	if spec.Supervisor != nil {
		untraced = append(untraced, spec.Supervisor.Filter)
	}
	untraced = append(untraced, spec.Seccomp...)
	notifier := -1
	loaded := make([]seccomp.Program, len(untraced))
	for i, prog := range untraced {
		if err := prog.Check(); err != nil {
			return nil, &SetupError{Code: ExitSetup, Msg: "--trace-denials: " + err.Error()}
		}
		if seccomp.Notifies(prog) {
			notifier = i
		}
		var err error
		if loaded[i], err = seccomp.Traced(prog); err != nil {
			return nil, &SetupError{Code: ExitSetup, Msg: "--trace-denials: " + err.Error()}
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
			return nil, &SetupError{Code: ExitSetup, Msg: "--trace-denials: " + err.Error()}
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

// refusedBy says whether filters, loaded in that order, refuse a call and
// with which errno: what the payload gets untraced. A trace is refused with
// ENOSYS, as the kernel refuses it without a tracer; the actions that
// outrank a trace (a kill, a trap, a notification) never reach the tracer,
// and are refused with ENOSYS should one do.
func refusedBy(filters []seccomp.Program) func(ptrace.Syscall) (unix.Errno, bool) {
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

// traceDenials makes the judge of --trace-denials, which attributes each
// refused call to the rule or layer that refused it, and returns what the
// sandbox's tracer tells every refused call it sees: the judge, then the
// log of the denials.
func (c *Cmd) traceDenials(p *Policy, prep *prepared) (func(ptrace.Event), error) {
	eff, err := p.Effect()
	if err != nil {
		return nil, err
	}
	direct := p.Isolation == IsolationLandlock
	j := newJudge(p, eff.Rules, direct)
	if direct && prep.tmpDir != nil {
		j.Writable = []string{prep.tmpDir.Path()}
	}
	s := c.sys
	s.denials, s.judge = newDenialLog(), j
	return func(ev ptrace.Event) {
		if pd, ok := j.Judge(ev); ok {
			d := Denial(pd)
			d.Pid, d.Argv0 = ev.Process()
			if d.Pid == 0 {
				d.Pid = ev.Pid
			}
			s.denials.add(d)
		}
	}, nil
}

// addRefusals judges what the Landlock-only supervisor failed for the
// payload, which its tracer never saw (a user notification outranks a
// trace), and counts it in the denials.
func (s *sysCmd) addRefusals(refusals []supervise.Refusal, dropped int) {
	if s.denials == nil || s.judge == nil {
		return
	}
	for _, r := range refusals {
		name, ok := seccomp.NativeName(uint64(r.NR))
		if !ok {
			continue
		}
		ev := ptrace.Event{Tid: r.Pid, Pid: r.Pid, Call: name, Errno: unix.Errno(r.Errno)}
		copy(ev.Args[:], r.Args)
		if r.Path != "" {
			ev.Paths = []string{r.Path}
		}
		if pd, ok := s.judge.Judge(ev); ok {
			d := Denial(pd)
			d.Pid, d.Argv0 = r.Pid, r.Argv0
			s.denials.addCount(d, r.Count)
		}
	}
	s.denials.drop(dropped)
}

// addCount counts d n times.
func (l *denialLog) addCount(d Denial, n int) {
	for ; n > 0; n-- {
		l.add(d)
	}
}

// drop counts n denials that were not kept.
func (l *denialLog) drop(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dropped+n < math.MaxInt32 {
		l.dropped += n
	} else {
		l.dropped = math.MaxInt32
	}
}
