package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Usage is what a group counted, and which of it.
type Usage struct {
	UserUS, SystemUS int64 // CPU time, valid if CPU
	PeakBytes        int64 // memory peak of all its processes together, valid if Memory
	CPU, Memory      bool
}

// Usage reads the group's CPU time (cgroup v2 counts it in every cgroup)
// and memory peak (with the memory controller).
func (g *Group) Usage() Usage {
	if g.v1 != nil {
		return g.v1.usage()
	}
	var u Usage
	if b, err := os.ReadFile(filepath.Join(g.dir, "cpu.stat")); err == nil {
		u.UserUS, u.SystemUS = int64(eventCount(string(b), "user_usec")), int64(eventCount(string(b), "system_usec"))
		u.CPU = strings.Contains(string(b), "user_usec ")
	}
	u.PeakBytes, u.Memory = readInt(filepath.Join(g.dir, "memory.peak"))
	return u
}

// usage reads a v1 group's memory peak, and its CPU time where cpuacct
// shares the cpu hierarchy (a group made for a CPU limit).
func (g *v1Group) usage() Usage {
	var u Usage
	if dir, ok := g.dirs["cpu"]; ok {
		userNS, ok1 := readInt(filepath.Join(dir, "cpuacct.usage_user"))
		systemNS, ok2 := readInt(filepath.Join(dir, "cpuacct.usage_sys"))
		u.UserUS, u.SystemUS, u.CPU = userNS/1000, systemNS/1000, ok1 && ok2
	}
	if dir, ok := g.dirs["memory"]; ok {
		u.PeakBytes, u.Memory = readInt(filepath.Join(dir, "memory.max_usage_in_bytes"))
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
