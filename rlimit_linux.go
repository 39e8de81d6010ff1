package nsrun

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
)

var rlimitResources = map[string]int{
	"nofile": unix.RLIMIT_NOFILE, "nproc": unix.RLIMIT_NPROC, "as": unix.RLIMIT_AS, "cpu": unix.RLIMIT_CPU,
	"fsize": unix.RLIMIT_FSIZE, "core": unix.RLIMIT_CORE, "stack": unix.RLIMIT_STACK, "memlock": unix.RLIMIT_MEMLOCK,
}

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

// applyRlimits sets the limits on this process; the payload inherits them.
// syscall.Setrlimit, not unix's: for RLIMIT_NOFILE it also stops Go from
// restoring its own saved limit in the children it forks.
func applyRlimits(rs []Rlimit) error {
	for _, r := range rs {
		res, ok := rlimitResources[r.Name]
		if !ok {
			return fmt.Errorf("rlimit %s: unknown", r.Name)
		}
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: r.Soft, Max: r.Hard}); err != nil {
			if errors.Is(err, unix.EPERM) {
				var cur syscall.Rlimit
				_ = syscall.Getrlimit(res, &cur)
				return fmt.Errorf("rlimit %s=%d:%d: cannot raise the hard limit above %d: %w", r.Name, r.Soft, r.Hard, cur.Max, err)
			}
			return fmt.Errorf("rlimit %s: %w", r.Name, err)
		}
	}
	return nil
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
