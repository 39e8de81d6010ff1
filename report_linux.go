package nsrun

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/sandbox"
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
func limitsReport(p *Policy, rs []Rlimit) map[string]string {
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

// limitError turns the cgroup package's error into the library's.
func limitError(err error) error {
	var ce *cgroup.Error
	if errors.As(err, &ce) {
		return &LimitError{Option: ce.Controller, Err: ce.Err}
	}
	return err
}
