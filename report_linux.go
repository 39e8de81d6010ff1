package nsrun

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/netproxy"
)

// reportOf raises the plan of prep into the report of c's sandbox, whose
// policy is p and ids ids.
func (c *Cmd) reportOf(p *Policy, prep *prepared, ids idMap) Report {
	pr := prep.Report
	r := Report{Version: 1, Backend: pr.Backend, Namespaces: NamespaceReport(pr.Namespaces), Filesystem: FilesystemReport(pr.FS),
		Network: networkReport(p), Landlock: LandlockReport(pr.Landlock), Seccomp: SeccompReport(pr.Seccomp),
		Compensations: pr.Compensations, NotEnforced: pr.NotEnforced, Limits: pr.Limits, Enforcement: pr.Enforcement}
	n := r.Network
	if pr.Net.Mode != "" {
		n.Mode, n.Allowed, n.AllowPrivateHosts = pr.Net.Mode, pr.Net.Allowed, pr.Net.AllowPrivateHosts
	}
	if pr.Net.Proxy != "" {
		n.Proxy = pr.Net.Proxy
	}
	if pr.Net.DNS != "" {
		n.DNS = pr.Net.DNS
	}
	n.HostPorts, n.Publish = append(n.HostPorts, pr.Net.HostPorts...), append(n.Publish, pr.Net.Publish...)
	// PWD is replaced, never removed: the report does not list it.
	r.Environment = EnvironmentReport{Removed: slices.DeleteFunc(prep.removed, func(k string) bool { return k == "PWD" }), Home: pr.Home}
	if len(prep.Targets) > 0 {
		r.Absent = &AbsentReport{Watched: []string{}, Appeared: []AppearedReport{}}
		for _, a := range prep.Targets {
			r.Absent.Watched = append(r.Absent.Watched, a.Path())
		}
	}
	c.describeRun(&r, prep.Spec.Dir, ids.uid, ids.gid)
	return r
}

// raiseSandbox turns the sandbox's errors into the library's: a step of
// its setup that failed into a *SetupError, a cgroup limit the host cannot
// give into a *LimitError; any other error is the host's, as it is.
func raiseSandbox(err error) error {
	if se, ok := err.(*sandbox.Error); ok {
		return &SetupError{Code: se.Code, Op: se.Op, Err: se.Err, Msg: se.Msg}
	}
	return limitError(err)
}

// reportLimits puts what the limits did in the report and says it on
// Warnings, one line each: processes the memory limit killed, forks the
// pids limit refused.
func (c *Cmd) reportLimits(ev cgroup.Events) {
	oomKills, pidsRefused := ev.OOMKills, ev.PidsRefused
	c.report.Exit.OOMKilled, c.report.Exit.PidsMax = oomKills > 0, pidsRefused > 0
	p := c.policy()
	if oomKills > 0 {
		c.limitf("memory limit %s reached: the kernel killed %d %s of the sandbox (OOM)", sizeText(p.Memory), oomKills, plural(oomKills, "process", "processes"))
	}
	if pidsRefused > 0 {
		c.limitf("pids limit %d reached: %d %s refused", p.Pids, pidsRefused, plural(pidsRefused, "fork was", "forks were"))
	}
}

// limitf says on Warnings that a limit acted on the sandbox: one line,
// not a warning about nsrun itself.
func (c *Cmd) limitf(format string, a ...any) {
	if c.Warnings != nil {
		fmt.Fprintf(c.Warnings, "nsrun: "+format+"\n", a...)
	}
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// limitError turns the cgroup package's error into the library's.
func limitError(err error) error {
	var ce *cgroup.Error
	if errors.As(err, &ce) {
		return &LimitError{Option: ce.Controller, Err: ce.Err}
	}
	return err
}

// nestedRepositories warns about, and returns, the repositories the
// payload made in the directories the protection searched: its own
// configuration, hooks and all, are what host git uses there, which no
// rule could keep from the payload. Those it registered as submodules of
// a protected repository come first: the host's git status in the
// superproject runs git in each (the index must be writable for git to
// commit).
func (c *Cmd) nestedRepositories(g *gitProtection) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range g.trees {
		nested, err := gitguard.Nested(t, g.known)
		if err != nil {
			c.warnf("git: cannot look for repositories the sandbox registered in %s: %v", t.Index, err)
			continue
		}
		for _, n := range nested {
			if !seen[n] {
				seen[n] = true
				c.warnf("git: %s is a repository the sandbox made and registered as a submodule in %s: git status there on the host runs git in it, with its configuration (%s/.git); look at it first", n, t.Dir, n)
				out = append(out, n)
			}
		}
	}
	excludes := map[string]bool{}
	for _, t := range g.trees {
		c.hiddenEntries(t)
		if f, changed := gitguard.ExcludeChanged(t); changed && !excludes[f] {
			excludes[f] = true
			c.warnf("git: the sandbox changed %s: the files its patterns match do not show in git status (git status --ignored shows them); look at it first", f)
		}
	}
	made, stopped := gitguard.Made(g.roots, g.known)
	for _, m := range made {
		if !seen[m] {
			seen[m] = true
			c.warnf("git: %s is a repository the sandbox made: host git there (and below, up to another repository) uses its configuration and hooks; look at them first", m)
			out = append(out, m)
		}
	}
	for _, m := range gitguard.MadeModules(g.modules, g.known) {
		if !seen[m] {
			seen[m] = true
			c.warnf("git: %s is a git directory the sandbox made for a submodule: host git's submodule update (--init) uses it, with its configuration and hooks, for a submodule of that name; look at it first", m)
			out = append(out, m)
		}
	}
	for _, s := range stopped {
		c.warnf("git: the search for repositories the sandbox made stopped at its bound, at %s: look for others yourself", s)
	}
	return out
}

// hiddenEntries warns about the files of t's index that the sandbox
// marked assume-unchanged or skip-worktree: their changes do not show in
// the git status or git diff the user reviews the payload's work with.
func (c *Cmd) hiddenEntries(t gitguard.Tree) {
	hidden, err := gitguard.NewlyHidden(t)
	if err != nil || len(hidden) == 0 {
		return // an index nsrun cannot read was warned about above
	}
	names := hidden
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(hidden)-5)
	}
	c.warnf("git: the sandbox marked %d files in %s assume-unchanged or skip-worktree, so git status and git diff do not show their changes: %s%s; see them with git ls-files -v | grep -v '^H', and clear the marks with git update-index --no-assume-unchanged --no-skip-worktree", len(hidden), t.Dir, strings.Join(names, ", "), more)
}

// reportAppeared puts what the watcher of names kept absent found in the
// report.
func (c *Cmd) reportAppeared(found []absent.Found) {
	for _, f := range found {
		a := AppearedReport{Path: f.Path(), Kind: f.Kind, Why: f.Why, Removed: f.Removed, Way: f.Way}
		if f.At != f.Path() {
			a.At = f.At
		}
		if f.Err != nil {
			a.Error = f.Err.Error()
		}
		c.report.Absent.Appeared = append(c.report.Absent.Appeared, a)
	}
}

// networkCounts are the filtered network's counts as the report gives them.
func networkCounts(cs []netproxy.Count) []NetworkCount {
	out := make([]NetworkCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, NetworkCount(c))
	}
	return out
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
