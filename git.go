package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/gitguard"
)

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
	for _, h := range in.Homes {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(h, ".config")
		}
		in.Global = append(in.Global, filepath.Join(xdg, "git", "config"), filepath.Join(h, ".gitconfig"))
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); filepath.IsAbs(g) {
		in.Global = append(in.Global, g)
	}
	in.Global = append(in.Global, "/etc/gitconfig")
	in.AcrossFilesystems = gitBool(os.Getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM"))
	prot := gitguard.Protect(in)
	out := &gitProtection{absent: prot.Absent, links: prot.Links, held: prot.Held, warnings: prot.Warnings, prot: prot}
	for _, e := range prot.Enclosing {
		out.notes = append(out.notes, enclosingNote(e))
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

// enclosingNote says what the sandbox makes of a repository found above a
// writable directory.
func enclosingNote(e gitguard.Enclosing) string {
	switch {
	case !e.Own:
		return fmt.Sprintf("%s lies in the repository %s (git directory %s): what its configuration names in writable places is protected", e.Root, e.Top, e.GitDir)
	case e.Writable:
		return fmt.Sprintf("%s lies in the repository %s, whose git directory %s is writable by a rule: protected as the workspace's", e.Root, e.Top, e.GitDir)
	}
	return fmt.Sprintf("%s lies in the repository %s, whose git directory %s is read-only here: git in the sandbox cannot commit to it (--rw %s lets it, protected as the workspace's); what its configuration names in writable places is protected", e.Root, e.Top, e.GitDir, e.GitDir)
}

// gitBool reads an environment variable as git reads a boolean one.
func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
