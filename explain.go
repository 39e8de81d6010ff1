package nsrun

import "path/filepath"

// Effect is a policy's rules as they take effect: canonical paths, nsrun's
// own rules included, precedence applied.
type Effect struct {
	Root      string
	Rules     []Rule
	Overruled []Overruled
	// Absent are the paths nsrun keeps absent (Policy.ProtectGit).
	Absent []string
}

// Explanation is the access a path gets, and the rule that decides it (nil
// when only the root covers it).
type Explanation struct {
	Path   string
	Access Access
	Rule   *Rule
}

// Explain says what access p gets and which rule decides, the answer to
// "why was this denied?". p is made absolute and, where it exists,
// canonical.
func (e *Effect) Explain(p string) Explanation {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	if canon, err := filepath.EvalSymlinks(abs); err == nil {
		abs = canon
	}
	a, by, ok := Resolve(e.Rules, abs)
	x := Explanation{Path: abs, Access: a}
	if ok {
		x.Rule = &by
	}
	return x
}

// Effect canonicalizes the policy's rules, adds nsrun's own and applies
// precedence, as a sandbox of this policy would.
func (p *Policy) Effect() (*Effect, error) { return p.effect(true) }

// effect is Effect, with or without this system's own rules.
func (p *Policy) effect(own bool) (*Effect, error) {
	rules, cwd, err := canonicalRules(p.Rules, p.Root != "")
	if err != nil {
		return nil, err
	}
	if err := checkConflicts(rules); err != nil {
		return nil, err
	}
	root := "/"
	if p.Root != "" {
		if root, _, err = canonical(p.Root, cwd); err != nil {
			return nil, &RuleError{Rule: Rule{Path: p.Root}, Err: err}
		}
	}
	if own {
		rules = append(ownRules(p, root), rules...)
		if p.Home == HomePersistent && p.HomeDir != "" {
			if cr, err := canonicalRule(Rule{Path: p.HomeDir, Access: ReadWrite, Source: SourceInternal}, cwd); err == nil {
				cr.internal = true
				rules = append(rules, cr)
			}
		}
	}
	var absent []string
	if own && p.ProtectGit {
		git := protectGit(rules)
		rules = append(rules, git.rules...)
		for _, a := range git.absent {
			absent = append(absent, a.Path())
		}
	}
	eff, overruled := effective(rules)
	e := &Effect{Root: root, Overruled: overruled, Absent: absent}
	for _, cr := range eff {
		r := Rule{Path: cr.Canon, Access: cr.Access, Source: cr.Source, From: cr.From}
		if cr.mapped() {
			r.From = cr.host
		}
		e.Rules = append(e.Rules, r)
	}
	return e, nil
}
