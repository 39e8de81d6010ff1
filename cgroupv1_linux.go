package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// v1Group is a sandbox's cgroup on hosts that keep memory, pids and cpu on
// cgroup v1 hierarchies beside a v2 one without them: one directory per
// controller. v1 has no CLONE_INTO_CGROUP, so the init is moved in before
// it is given its spec, that is before the payload exists.
type v1Group struct {
	dirs map[string]string // controller → directory
}

// v1Setting is one file written in a v1 cgroup.
type v1Setting struct{ file, value string }

// v1Files are the v1 files that set p's limits, by controller, in the
// order the kernel accepts them: memsw may not be set below the memory
// limit, so the memory limit goes first.
func v1Files(p *Policy) map[string][]v1Setting {
	out := map[string][]v1Setting{}
	if p.Memory > 0 {
		v := fmt.Sprint(p.Memory)
		out["memory"] = []v1Setting{{"memory.limit_in_bytes", v}, {"memory.memsw.limit_in_bytes", v}}
	}
	if p.Pids > 0 {
		out["pids"] = []v1Setting{{"pids.max", fmt.Sprint(p.Pids)}}
	}
	if p.CPU > 0 {
		const period = 100000
		out["cpu"] = []v1Setting{{"cpu.cfs_period_us", fmt.Sprint(period)}, {"cpu.cfs_quota_us", fmt.Sprint(int64(p.CPU*period + 0.5))}}
	}
	return out
}

// v1Hierarchies maps each v1 controller to its mount point and this
// process's place in it, from mountinfo and /proc/self/cgroup.
func v1Hierarchies(mountinfo, selfCgroup string) map[string]string {
	type mount struct{ root, point string }
	mounts := map[string]mount{}
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || g[0] != "cgroup" {
			continue
		}
		for _, opt := range strings.Split(g[2], ",") {
			mounts[opt] = mount{f[3], f[4]}
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

// newCgroupV1 makes the sandbox's v1 cgroups, or says which controller has
// no hierarchy.
func newCgroupV1(p *Policy) (*v1Group, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	places := v1Hierarchies(string(mi), string(self))
	g := &v1Group{dirs: map[string]string{}}
	name := fmt.Sprintf("nsrun-%d-%d", os.Getpid(), time.Now().UnixNano())
	for controller, files := range v1Files(p) {
		parent, ok := places[controller]
		if !ok {
			g.remove()
			return nil, &LimitError{Option: controller, Err: fmt.Errorf("no %s controller in cgroup v2 nor v1 on this host", controller)}
		}
		removeStaleCgroups(parent)
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			g.remove()
			return nil, &LimitError{Option: controller, Err: fmt.Errorf("create %s: %w", dir, err)}
		}
		g.dirs[controller] = dir
		for _, set := range files {
			file, value := set.file, set.value
			err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0)
			if errors.Is(err, os.ErrNotExist) && file == "memory.memsw.limit_in_bytes" {
				continue // no swap accounting: no swap to bypass the limit with
			}
			if err != nil {
				g.remove()
				return nil, &LimitError{Option: controller, Err: fmt.Errorf("write %s=%s in %s: %w", file, value, dir, err)}
			}
		}
	}
	return g, nil
}

// add moves pid (the init, before its payload exists) into every cgroup.
func (g *v1Group) add(pid int) error {
	for c, dir := range g.dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return &LimitError{Option: c, Err: fmt.Errorf("move the init into %s: %w", dir, err)}
		}
	}
	return nil
}

func (g *v1Group) events() (oomKills, pidsRefused uint64) {
	if dir, ok := g.dirs["memory"]; ok {
		b, _ := os.ReadFile(filepath.Join(dir, "memory.oom_control"))
		oomKills = eventCount(string(b), "oom_kill")
	}
	if dir, ok := g.dirs["pids"]; ok {
		b, _ := os.ReadFile(filepath.Join(dir, "pids.events"))
		pidsRefused = eventCount(string(b), "max")
	}
	return oomKills, pidsRefused
}

func (g *v1Group) remove() {
	for _, dir := range g.dirs {
		removeCgroupDir(dir)
	}
}
