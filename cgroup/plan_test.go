package cgroup

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

func TestV2Files(t *testing.T) {
	files, need := Files(Limits{Memory: 64 << 20, Pids: 64, CPU: 0.5})
	want := map[string]string{"memory.max": "67108864", "memory.swap.max": "0", "pids.max": "64", "cpu.max": "50000 100000"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if strings.Join(need, " ") != "memory pids cpu" {
		t.Errorf("controllers %v", need)
	}
	if files, need := Files(Limits{}); len(files) != 0 || len(need) != 0 {
		t.Errorf("no limits: %v %v", files, need)
	}
}

func TestV1FilesOrder(t *testing.T) {
	got := v1Files(Limits{Memory: 64 << 20, Pids: 10, CPU: 0.5})
	want := map[string][]v1Setting{
		"memory": {{"memory.limit_in_bytes", "67108864"}, {"memory.memsw.limit_in_bytes", "67108864"}},
		"pids":   {{"pids.max", "10"}},
		"cpu":    {{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "50000"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("v1Files:\n got %v\nwant %v", got, want)
	}
}

const hybrid = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 /outer /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 /elsewhere /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`

func TestHierarchies(t *testing.T) {
	entries, err := mountinfo.Parse(strings.NewReader(hybrid))
	if err != nil {
		t.Fatal(err)
	}
	self := "8:pids:/mine\n4:memory:/outer/job\n1:cpu,cpuacct:/\n0::/"
	got := v1Hierarchies(entries, self)
	want := map[string]string{
		"cpu":     "/sys/fs/cgroup/cpu,cpuacct",
		"cpuacct": "/sys/fs/cgroup/cpu,cpuacct",
		"memory":  "/sys/fs/cgroup/memory/job",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("v1Hierarchies:\n got %v\nwant %v (pids is outside its mounted root: not usable)", got, want)
	}
	if mnt, ok := v2Mount(entries); !ok || mnt != "/sys/fs/cgroup/unified" {
		t.Errorf("v2Mount = %q %v", mnt, ok)
	}
	if _, ok := v2Mount(entries[:4]); ok {
		t.Error("v2Mount found a hierarchy where none is mounted")
	}
}

func TestSmallDecisions(t *testing.T) {
	if p, ok := Own("12:pids:/x\n0::/user.slice/app\n"); !ok || p != "/user.slice/app" {
		t.Errorf("Own %q %v", p, ok)
	}
	if _, ok := Own("12:pids:/x\n"); ok {
		t.Error("Own found a v2 path in a v1-only list")
	}
	if n := eventCount("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n", "oom_kill"); n != 1 {
		t.Errorf("oom_kill %d", n)
	}
	for name, want := range map[string]int{"nsrun-42-17": 42, "nsrun-7": 7} {
		if pid, ok := staleOwner(name); !ok || pid != want {
			t.Errorf("staleOwner(%q) = %d %v", name, pid, ok)
		}
	}
	for _, name := range []string{"user.slice", "nsrun-x-1", "nsrun"} {
		if _, ok := staleOwner(name); ok {
			t.Errorf("staleOwner(%q) claimed it", name)
		}
	}
}

func ExampleMissing() {
	fmt.Println(Missing([]string{"memory", "pids", "cpu"}, "cpuset cpu io memory hugetlb\n"))
	// Output: [pids]
}
