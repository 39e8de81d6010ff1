package gitguard

import (
	"fmt"
	"strings"
)

// Review, after the run, warns about, and returns, the repositories the
// payload made in the directories the protection searched: its own
// configuration, hooks and all, are what host git uses there, which no
// rule could keep from the payload. Those it registered as submodules of
// a protected repository come first: the host's git status in the
// superproject runs git in each (the index must be writable for git to
// commit).
func (g *Protection) Review(warn func(format string, a ...any)) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range g.Trees {
		nested, err := Nested(t, g.Known)
		if err != nil {
			warn("git: cannot look for repositories the sandbox registered in %s: %v", t.Index, err)
			continue
		}
		for _, n := range nested {
			if !seen[n] {
				seen[n] = true
				warn("git: %s is a repository the sandbox made and registered as a submodule in %s: git status there on the host runs git in it, with its configuration (%s/.git); look at it first", n, t.Dir, n)
				out = append(out, n)
			}
		}
	}
	excludes := map[string]bool{}
	for _, t := range g.Trees {
		warnHidden(t, warn)
		warnClaimed(t, warn)
		if f, changed := ExcludeChanged(t); changed && !excludes[f] {
			excludes[f] = true
			warn("git: the sandbox changed %s: the files its patterns match do not show in git status (git status --ignored shows them); look at it first", f)
		}
	}
	made, stopped, unread := Made(g.Roots, g.Known)
	for _, m := range made {
		if !seen[m] {
			seen[m] = true
			warn("git: %s is a repository the sandbox made: host git there (and below, up to another repository) uses its configuration and hooks; look at them first", m)
			out = append(out, m)
		}
	}
	for _, m := range MadeModules(g.Modules, g.Known) {
		if !seen[m] {
			seen[m] = true
			warn("git: %s is a git directory the sandbox made for a submodule: host git's submodule update (--init) uses it, with its configuration and hooks, for a submodule of that name; look at it first", m)
			out = append(out, m)
		}
	}
	for _, u := range unread {
		warn("git: cannot read %s (%s): a repository the sandbox made in it would not be named here, and host git and cd need only the right to enter it; look there yourself", u.Dir, errText(u.Err))
	}
	for _, s := range stopped {
		warn("git: the search for repositories the sandbox made stopped at its bound, at %s: look for others yourself", s)
	}
	return out
}

// warnHidden warns about the files of t's index that the sandbox
// marked assume-unchanged or skip-worktree: their changes do not show in
// the git status or git diff the user reviews the payload's work with.
func warnHidden(t Tree, warn func(format string, a ...any)) {
	hidden, err := NewlyHidden(t)
	if err != nil || len(hidden) == 0 {
		return // an index nsrun cannot read was warned about above
	}
	names := hidden
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(hidden)-5)
	}
	warn("git: the sandbox marked %d files in %s assume-unchanged or skip-worktree, so git status and git diff do not show their changes: %s%s; see them with git ls-files -v | grep -v '^H', and clear the marks with git update-index --no-assume-unchanged --no-skip-worktree", len(hidden), t.Dir, strings.Join(names, ", "), more)
}

// warnClaimed warns about the files of t's index whose stat data the
// sandbox left matching files that are not what the entries name: git
// status and git diff trust that stat data and do not show the changes.
func warnClaimed(t Tree, warn func(format string, a ...any)) {
	claimed, err := NewlyClaimed(t)
	if err != nil {
		warn("git: cannot check the files %s records as unchanged: %v", t.Index, err)
		return
	}
	if len(claimed) == 0 {
		return
	}
	names := claimed
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(claimed)-5)
	}
	warn("git: the index of %s records %d files as unchanged that are not what it names (unless a filter or line-ending conversion of .gitattributes explains it), with stat data that keeps git status and git diff from reading them: %s%s; touch them, and git status shows their changes", t.Dir, len(claimed), strings.Join(names, ", "), more)
}
