package nsrun

import (
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/seccomp"
)

// tracedFilters makes spec's seccomp programs those of a traced sandbox
// and returns them as they were (plan.TracedFilters).
func tracedFilters(spec *launch.Spec) ([]seccomp.Program, error) {
	untraced, err := plan.TracedFilters(spec)
	return untraced, raise(err)
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
		ev, ok := plan.RefusalEvent(r)
		if !ok {
			continue
		}
		if pd, ok := s.judge.Judge(ev); ok {
			d := Denial(pd)
			d.Pid, d.Argv0 = r.Pid, r.Argv0
			s.denials.addCount(d, r.Count)
		}
	}
	s.denials.drop(dropped)
}

// newJudge is the judge of --trace-denials for a sandbox of p built from
// the effective rules: Resolve over them is what nsrun policy explain
// answers.
func newJudge(p *Policy, rules []Rule, landlockOnly bool) *plan.Judge {
	j := &plan.Judge{Root: "host root", LandlockOnly: landlockOnly, HostNet: p.Net == NetHost, Filtered: p.filtersNetwork()}
	if p.Root != "" {
		j.Root = "--root " + p.Root
	}
	j.Resolve = func(path string) (mounts.Access, string, bool, bool) {
		access, by, ok := Resolve(rules, path)
		if !ok {
			return 0, "", false, false
		}
		return mounts.Access(access), ruleLabel(by), by.Source == SourceMandatory, true
	}
	return j
}

// ruleLabel names a rule as the command line gives it.
func ruleLabel(r Rule) string {
	if r.Source == SourceInternal {
		return "nsrun's " + r.Access.String() + " " + r.Path
	}
	s := "--" + r.Option() + " "
	if r.From != "" {
		s += r.From + " "
	}
	s += r.Path
	if r.Source == SourceMandatory {
		s += " (mandatory)"
	}
	return s
}
