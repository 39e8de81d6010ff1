package nsrun

import (
	"fmt"

	"github.com/nsrun/nsrun/cgroup"
)

// withDefaultRlimits adds core=0 unless the caller set core: a crashing
// payload must not write a core file of its memory where it can.
func withDefaultRlimits(rs []Rlimit) []Rlimit {
	for _, r := range rs {
		if r.Name == "core" {
			return rs
		}
	}
	return append(append([]Rlimit(nil), rs...), Rlimit{Name: "core"})
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
