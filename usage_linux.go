package nsrun

import (
	"fmt"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/launch"
)

// usageReport is what the whole sandbox used. The init's accounting of
// all it reaped counts every process (an init killed before it could say
// leaves the kernel's accounting of the init and everything it reaped, the
// init included; the Landlock-only payload's is of the payload and what it
// reaped). Where nsrun made a cgroup, it counts instead: the CPU time
// where it accounts for it, and the memory peak of all the sandbox's
// processes together where it has the memory controller.
func (s *sysCmd) usageReport() *UsageReport {
	u := &UsageReport{WallMS: ms(s.ended.Sub(s.running)), Source: "rusage"}
	if s.usage != nil {
		u.UserMS, u.SystemMS, u.MaxRSSKiB = float64(s.usage.UserUS)/1000, float64(s.usage.SystemUS)/1000, s.usage.MaxRSSKiB
	} else {
		u.UserMS, u.SystemMS = float64(launch.TVMicros(s.rusage.Utime))/1000, float64(launch.TVMicros(s.rusage.Stime))/1000
		u.MaxRSSKiB = s.rusage.Maxrss
	}
	if s.cgroup == nil {
		return u
	}
	cu := s.cgroup.Usage()
	if cu.CPU {
		u.UserMS, u.SystemMS = float64(cu.UserUS)/1000, float64(cu.SystemUS)/1000
	}
	if cu.Memory {
		u.MaxRSSKiB, u.Source = (cu.PeakBytes+1023)/1024, "cgroup"
	}
	return u
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
