package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

// v1Group is a sandbox's group on hosts that keep memory, pids and cpu on
// cgroup v1 hierarchies beside a v2 one without them: one directory per
// controller. v1 has no CLONE_INTO_CGROUP, so the first process is moved
// in before it runs anything of the sandbox's.
type v1Group struct {
	dirs map[string]string // controller → directory
}

// newV1 makes the v1 groups for l, or says which controller has no
// hierarchy.
func newV1(l Limits) (*v1Group, error) {
	entries, err := mountinfo.Self()
	if err != nil {
		return nil, err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	places := v1Hierarchies(entries, string(self))
	g := &v1Group{dirs: map[string]string{}}
	name := fmt.Sprintf("nsrun-%d-%d", os.Getpid(), time.Now().UnixNano())
	for controller, files := range v1Files(l) {
		parent, ok := places[controller]
		if !ok {
			g.remove()
			return nil, &Error{Controller: controller, Err: fmt.Errorf("no %s controller in cgroup v2 nor v1 on this host", controller)}
		}
		removeStale(parent)
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			g.remove()
			return nil, &Error{Controller: controller, Err: fmt.Errorf("create %s: %w", dir, err)}
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
				return nil, &Error{Controller: controller, Err: fmt.Errorf("write %s=%s in %s: %w", file, value, dir, err)}
			}
		}
	}
	return g, nil
}

// add moves pid (the first process, before it runs the sandbox's
// programs) into every group.
func (g *v1Group) add(pid int) error {
	for c, dir := range g.dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return &Error{Controller: c, Err: fmt.Errorf("move the init into %s: %w", dir, err)}
		}
	}
	return nil
}

func (g *v1Group) events() Events {
	var ev Events
	if dir, ok := g.dirs["memory"]; ok {
		b, _ := os.ReadFile(filepath.Join(dir, "memory.oom_control"))
		ev.OOMKills = eventCount(string(b), "oom_kill")
	}
	if dir, ok := g.dirs["pids"]; ok {
		b, _ := os.ReadFile(filepath.Join(dir, "pids.events"))
		ev.PidsRefused = eventCount(string(b), "max")
	}
	return ev
}

func (g *v1Group) remove() {
	for _, dir := range g.dirs {
		removeDir(dir)
	}
}
