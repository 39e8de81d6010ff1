package nsrun

import (
	"fmt"
	"strconv"
	"strings"
)

// cgroupFiles are the cgroup v2 files that set a policy's limits, and the
// controllers they need.
func cgroupFiles(p *Policy) (files map[string]string, controllers []string) {
	files = map[string]string{}
	if p.Memory > 0 {
		files["memory.max"] = fmt.Sprint(p.Memory)
		// Swap would let the payload go past the limit.
		files["memory.swap.max"] = "0"
		controllers = append(controllers, "memory")
	}
	if p.Pids > 0 {
		files["pids.max"] = fmt.Sprint(p.Pids)
		controllers = append(controllers, "pids")
	}
	if p.CPU > 0 {
		const period = 100000
		files["cpu.max"] = fmt.Sprintf("%d %d", int64(p.CPU*period+0.5), period)
		controllers = append(controllers, "cpu")
	}
	return files, controllers
}

// missingControllers are the controllers of need not in the
// space-separated list available (a cgroup.controllers file).
func missingControllers(need []string, available string) []string {
	have := map[string]bool{}
	for _, c := range strings.Fields(available) {
		have[c] = true
	}
	var out []string
	for _, c := range need {
		if !have[c] {
			out = append(out, c)
		}
	}
	return out
}

// ownCgroup is the cgroup v2 path of a process, from /proc/PID/cgroup.
func ownCgroup(procCgroup string) (string, bool) {
	for _, line := range strings.Split(procCgroup, "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return rest, true
		}
	}
	return "", false
}

// eventCount reads one counter of a cgroup events file (memory.events,
// pids.events).
func eventCount(events, key string) uint64 {
	for _, line := range strings.Split(events, "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
