package nsrun

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/netproxy"
)

// enforcement is the report's overall word on the layers. The host's
// network, asked for, is no layer missing.
func enforcement(r *Report, hostNet bool) string {
	ns := r.Namespaces
	if ns.User && ns.Mount && ns.PID && ns.IPC && ns.UTS && (ns.Net || hostNet) && ns.Cgroup &&
		r.Landlock.Status == "full" && r.Seccomp.Status == "full" && r.Filesystem.Proc != "host" {
		return "full"
	}
	if !ns.User && r.Landlock.Status != "full" && r.Landlock.Status != "partial" {
		return "none"
	}
	return "partial"
}

// strictError lists what keeps a sandbox from being fully enforced.
func strictError(r *Report, isolation Isolation) error {
	var missing []string
	if isolation == IsolationLandlock {
		missing = append(missing, "namespaces (--isolation landlock)")
	} else if r.Filesystem.Proc == "host" {
		missing = append(missing, "a private /proc (--proc host)")
	}
	if r.Landlock.Status != "full" {
		what := r.Landlock.Status
		if len(r.Landlock.Dropped) > 0 {
			what = strings.Join(r.Landlock.Dropped, ", ")
		}
		missing = append(missing, fmt.Sprintf("landlock: %s", what))
	}
	if r.Seccomp.Status != "full" {
		what := "seccomp: " + r.Seccomp.Status
		if r.Seccomp.Reason != "" {
			what += " (" + r.Seccomp.Reason + ")"
		}
		missing = append(missing, what)
	}
	if len(missing) == 0 {
		return nil
	}
	return &SetupError{Code: ExitSetup, Msg: "--strict: not fully enforced: " + strings.Join(missing, "; ")}
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

// limitsReport describes the limits for the report.
func limitsReport(p *Policy, rs []launch.Rlimit) map[string]string {
	m := map[string]string{}
	show := func(v uint64) string {
		if v == RlimitInfinity {
			return "unlimited"
		}
		return fmt.Sprint(v)
	}
	for _, r := range rs {
		m[r.Name] = show(r.Soft) + ":" + show(r.Hard)
	}
	if p.TmpfsSize > 0 {
		m["tmpfs_size"] = fmt.Sprint(p.TmpfsSize)
	}
	files, _ := cgroup.Files(cgroupLimits(p))
	for _, k := range []string{"memory.max", "pids.max", "cpu.max"} {
		if v, ok := files[k]; ok {
			m[k] = v
		}
	}
	return m
}

// overruledReport lists the rules that did not take effect as written,
// and warns about each one a caller set.
func (c *Cmd) overruledReport(overruled []Overruled) []string {
	var out []string
	for _, o := range overruled {
		if o.Rule.Source == SourceInternal {
			continue // nsrun's own defaults give way by design
		}
		out = append(out, o.String())
		c.warnf("%s", o)
	}
	return out
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
