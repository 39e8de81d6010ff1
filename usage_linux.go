package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		u.UserMS, u.SystemMS = float64(tvMicros(s.rusage.Utime))/1000, float64(tvMicros(s.rusage.Stime))/1000
		u.MaxRSSKiB = s.rusage.Maxrss
	}
	if s.cgroup == nil {
		return u
	}
	cu := s.cgroup.usage()
	if cu.cpu {
		u.UserMS, u.SystemMS = float64(cu.userUS)/1000, float64(cu.systemUS)/1000
	}
	if cu.memory {
		u.MaxRSSKiB, u.Source = (cu.peakBytes+1023)/1024, "cgroup"
	}
	return u
}

// cgroupUsage is what a sandbox's cgroup counted, and which of it.
type cgroupUsage struct {
	userUS, systemUS int64
	peakBytes        int64
	cpu, memory      bool
}

// usage reads the cgroup's CPU time (cgroup v2 counts it in every cgroup)
// and memory peak (with the memory controller).
func (cg *sandboxCgroup) usage() cgroupUsage {
	if cg.v1 != nil {
		return cg.v1.usage()
	}
	var u cgroupUsage
	if b, err := os.ReadFile(filepath.Join(cg.dir, "cpu.stat")); err == nil {
		u.userUS, u.systemUS = int64(eventCount(string(b), "user_usec")), int64(eventCount(string(b), "system_usec"))
		u.cpu = strings.Contains(string(b), "user_usec ")
	}
	u.peakBytes, u.memory = readInt(filepath.Join(cg.dir, "memory.peak"))
	return u
}

// usage reads a v1 group's memory peak, and its CPU time where cpuacct
// shares the cpu hierarchy (a group made for --cpu).
func (g *v1Group) usage() cgroupUsage {
	var u cgroupUsage
	if dir, ok := g.dirs["cpu"]; ok {
		userNS, ok1 := readInt(filepath.Join(dir, "cpuacct.usage_user"))
		systemNS, ok2 := readInt(filepath.Join(dir, "cpuacct.usage_sys"))
		u.userUS, u.systemUS, u.cpu = userNS/1000, systemNS/1000, ok1 && ok2
	}
	if dir, ok := g.dirs["memory"]; ok {
		u.peakBytes, u.memory = readInt(filepath.Join(dir, "memory.max_usage_in_bytes"))
	}
	return u
}

func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// reportLimits puts what the limits did in the report and says it on
// Warnings, one line each: processes the memory limit killed, forks the
// pids limit refused.
func (c *Cmd) reportLimits(oomKills, pidsRefused uint64) {
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
