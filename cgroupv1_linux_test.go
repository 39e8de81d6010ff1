package nsrun

import (
	"reflect"
	"testing"
)

func TestV1Hierarchies(t *testing.T) {
	mountinfo := `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 /outer /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 /elsewhere /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`
	self := `8:pids:/mine
4:memory:/outer/job
1:cpu,cpuacct:/
0::/`
	got := v1Hierarchies(mountinfo, self)
	want := map[string]string{
		"cpu":     "/sys/fs/cgroup/cpu,cpuacct",
		"cpuacct": "/sys/fs/cgroup/cpu,cpuacct",
		"memory":  "/sys/fs/cgroup/memory/job",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("v1Hierarchies:\n got %v\nwant %v (pids is outside its mounted root: not usable)", got, want)
	}
}

func TestV1FilesOrder(t *testing.T) {
	got := v1Files(&Policy{Memory: 64 << 20, Pids: 10, CPU: 0.5})
	want := map[string][]v1Setting{
		"memory": {{"memory.limit_in_bytes", "67108864"}, {"memory.memsw.limit_in_bytes", "67108864"}},
		"pids":   {{"pids.max", "10"}},
		"cpu":    {{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "50000"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("v1Files:\n got %v\nwant %v", got, want)
	}
}
