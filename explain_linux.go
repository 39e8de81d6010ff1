package nsrun

import (
	"fmt"
	"os"
)

// Effect canonicalizes the policy's rules, adds nsrun's own and applies
// precedence, as a sandbox of this policy would.
func (p *Policy) Effect() (*Effect, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("current directory: %w", err)
	}
	var rules []canonRule
	for _, r := range p.Rules {
		cr, err := canonicalRule(r, cwd)
		if err != nil {
			return nil, err
		}
		rules = append(rules, cr)
	}
	root := "/"
	if p.Root != "" {
		if root, _, err = canonical(p.Root, cwd); err != nil {
			return nil, &RuleError{Rule: Rule{Path: p.Root}, Err: err}
		}
	}
	if p.Isolation == IsolationFull {
		rules = append(internalRules(root, p.Net == NetHost), rules...)
		if p.PrivateHome {
			rules = append(rules, canonRule{Rule: Rule{Path: privateHome, Access: Tmpfs, Source: SourceInternal}, Canon: privateHome, Dir: true, internal: true})
		}
	}
	eff, overruled := effective(rules)
	e := &Effect{Root: root, Overruled: overruled}
	for _, cr := range eff {
		e.Rules = append(e.Rules, Rule{Path: cr.Canon, Access: cr.Access, Source: cr.Source})
	}
	return e, nil
}
