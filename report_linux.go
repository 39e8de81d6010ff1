package nsrun

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/internal/values"
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
		c.limitf("memory limit %s reached: the kernel killed %d %s of the sandbox (OOM)", values.SizeText(p.Memory), oomKills, plural(oomKills, "process", "processes"))
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

// reportAppeared puts what the watcher of names kept absent found in the
// report.
func (c *Cmd) reportAppeared(found []sandbox.Found) {
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

// denialsOf raises what l kept into the report's denials.
func denialsOf(l *plan.DenialLog) ([]Denial, int) {
	ds, dropped := l.List()
	out := make([]Denial, len(ds))
	for i, d := range ds {
		out[i] = Denial(d)
	}
	return out, dropped
}

// networkCounts are the filtered network's counts as the report gives them.
func networkCounts(cs []netproxy.Count) []NetworkCount {
	out := make([]NetworkCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, NetworkCount(c))
	}
	return out
}

// ProbeHost finds out what this host can enforce for the calling user. It
// creates one throwaway set of namespaces to be sure.
func ProbeHost() Probe {
	h := sandbox.ProbeHost()
	return Probe{UserNamespaces: ProbeItem(h.UserNamespaces), Nested: h.Nested, Procfs: ProbeItem(h.Procfs), Sysfs: ProbeItem(h.Sysfs),
		MountSetattr: ProbeItem(h.MountSetattr), Landlock: ProbeItem(h.Landlock), LandlockABI: h.LandlockABI,
		Seccomp: ProbeItem(h.Seccomp), CgroupV2: ProbeItem(h.CgroupV2), CgroupV2Path: h.CgroupV2Path,
		Limits: ProbeItem(h.Limits), LimitsCgroup: h.LimitsCgroup, Seatbelt: ProbeItem{Detail: "not on macOS"},
		RestrictedToken: ProbeRestrictedToken{Detail: "not on Windows"},
		LandlockOnly:    ProbeLandlockOnly(plan.ProbeLandlockOnly(h.LandlockABI, plan.PidfdGetfdAllowed))}
}
