package cgroup

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

// Limits are what a sandbox's group holds it to; zero is no limit.
type Limits struct {
	Memory uint64  // bytes of memory, swap off
	Pids   uint64  // processes and threads
	CPU    float64 // CPUs' worth of time per period
}

// Files are the cgroup v2 files that set l, and the controllers they
// need, in a stable order.
func Files(l Limits) (files map[string]string, controllers []string) {
	files = map[string]string{}
	if l.Memory > 0 {
		files["memory.max"] = fmt.Sprint(l.Memory)
		// Swap would let the payload go past the limit.
		files["memory.swap.max"] = "0"
		controllers = append(controllers, "memory")
	}
	if l.Pids > 0 {
		files["pids.max"] = fmt.Sprint(l.Pids)
		controllers = append(controllers, "pids")
	}
	if l.CPU > 0 {
		const period = 100000
		files["cpu.max"] = fmt.Sprintf("%d %d", int64(l.CPU*period+0.5), period)
		controllers = append(controllers, "cpu")
	}
	return files, controllers
}

// v1Setting is one file written in a v1 cgroup.
type v1Setting struct{ file, value string }

// v1Files are the v1 files that set l, by controller, in the order the
// kernel accepts them: memsw may not be set below the memory limit, so the
// memory limit goes first.
func v1Files(l Limits) map[string][]v1Setting {
	out := map[string][]v1Setting{}
	if l.Memory > 0 {
		v := fmt.Sprint(l.Memory)
		out["memory"] = []v1Setting{{"memory.limit_in_bytes", v}, {"memory.memsw.limit_in_bytes", v}}
	}
	if l.Pids > 0 {
		out["pids"] = []v1Setting{{"pids.max", fmt.Sprint(l.Pids)}}
	}
	if l.CPU > 0 {
		const period = 100000
		out["cpu"] = []v1Setting{{"cpu.cfs_period_us", fmt.Sprint(period)}, {"cpu.cfs_quota_us", fmt.Sprint(int64(l.CPU*period + 0.5))}}
	}
	return out
}

// Missing are the controllers of need not in the space-separated list
// available (a cgroup.controllers file).
func Missing(need []string, available string) []string {
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

// Own is the cgroup v2 path of a process, from /proc/PID/cgroup.
func Own(procCgroup string) (string, bool) {
	for _, line := range strings.Split(procCgroup, "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return rest, true
		}
	}
	return "", false
}

// v2Mount is where the cgroup v2 hierarchy is mounted.
func v2Mount(entries []mountinfo.Entry) (string, bool) {
	for _, e := range entries {
		if e.FSType == "cgroup2" {
			return e.MountPoint, true
		}
	}
	return "", false
}

// v1Hierarchies maps each v1 controller to its mount point and this
// process's place in it, from the mount table and /proc/self/cgroup.
func v1Hierarchies(entries []mountinfo.Entry, selfCgroup string) map[string]string {
	type mount struct{ root, point string }
	mounts := map[string]mount{}
	for _, e := range entries {
		if e.FSType != "cgroup" {
			continue
		}
		for _, opt := range strings.Split(e.SuperOptions, ",") {
			mounts[opt] = mount{e.Root, e.MountPoint}
		}
	}
	out := map[string]string{}
	for _, line := range strings.Split(selfCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || parts[1] == "" {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			// A hierarchy mounted from below its root (in a container)
			// shows only the part of the path under that root.
			if m, ok := mounts[c]; ok {
				rel, err := filepath.Rel(m.root, parts[2])
				if err != nil || strings.HasPrefix(rel, "..") {
					continue
				}
				out[c] = filepath.Join(m.point, rel)
			}
		}
	}
	return out
}

// eventCount reads one counter of a cgroup key-value file (memory.events,
// pids.events, cpu.stat).
func eventCount(events, key string) uint64 {
	for _, line := range strings.Split(events, "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// staleOwner is the pid in the name of a group nsrun made ("nsrun-PID-N").
func staleOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "nsrun-")
	if !ok {
		return 0, false
	}
	pidText, _, _ := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil
}
