package nsrun

import "github.com/nsrun/nsrun/internal/gitguard"

// gitProtection is what Policy.ProtectGit adds: rules, names to keep
// absent, and what the caller is told.
type gitProtection struct {
	rules    []canonRule
	absent   []gitguard.Absent
	links    []string // symlinks to hold: host git follows them later
	held     []string // directories to hold: ".." leaves them
	warnings []string
	notes    []string             // for -v: the repositories enclosing the workspace
	prot     *gitguard.Protection // looked at again after the run (Review)
}

// protectGit finds the repositories in the writable directory rules of
// rules (canonical, nsrun's own included) and turns their protection into
// baseline rules, so that a rule the caller sets on the same path, or a
// read-only one of the caller's above, wins.
func protectGit(rules []canonRule) *gitProtection {
	eff, _ := effective(rules)
	in := gitguard.Input{Homes: Homes(), Decide: func(p string) gitguard.State {
		r, ok := cover(eff, p)
		switch {
		case !ok || r.internal && r.Access == Tmpfs:
			// Only the read-only root, or nsrun's own private /tmp, which
			// a rule below shows through.
			return gitguard.HostReadOnly
		case r.Access == ReadWrite:
			return gitguard.Writable
		}
		return gitguard.Restricted
	}}
	for _, r := range eff {
		if r.Access == ReadWrite && r.Dir && !r.internal {
			in.Roots = append(in.Roots, r.Canon)
		}
	}
	in.HostConfig()
	prot := gitguard.Protect(in)
	out := &gitProtection{absent: prot.Absent, links: prot.Links, held: prot.Held, warnings: prot.Warnings, prot: prot}
	for _, e := range prot.Enclosing {
		out.notes = append(out.notes, e.Note())
	}
	add := func(p string, a Access) {
		r := Rule{Path: p, Access: a, Source: SourceBaseline}
		cr, err := canonicalRule(r, "/")
		if err != nil {
			// Gone since it was found, or of a kind no rule can show: say
			// so rather than leave it as it is without a word.
			out.warnings = append(out.warnings, err.Error()+"; it is not protected")
			return
		}
		out.rules = append(out.rules, cr)
	}
	for _, p := range prot.Writable {
		add(p, ReadWrite)
	}
	for _, p := range prot.ReadOnly {
		add(p, ReadOnly)
	}
	return out
}
