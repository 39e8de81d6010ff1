package nsrun

import (
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/mounts"
)

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
