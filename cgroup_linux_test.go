package nsrun

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLimitDecisions(t *testing.T) {
	files, need := cgroupFiles(&Policy{Memory: 64 << 20, Pids: 64, CPU: 0.5})
	want := map[string]string{"memory.max": "67108864", "memory.swap.max": "0", "pids.max": "64", "cpu.max": "50000 100000"}
	for k, v := range want {
		if files[k] != v {
			t.Errorf("%s = %q, want %q", k, files[k], v)
		}
	}
	if strings.Join(need, " ") != "memory pids cpu" {
		t.Errorf("controllers %v", need)
	}
	if m := missingControllers(need, "cpuset cpu io memory hugetlb\n"); len(m) != 1 || m[0] != "pids" {
		t.Errorf("missing %v", m)
	}
	if p, ok := ownCgroup("12:pids:/x\n0::/user.slice/app\n"); !ok || p != "/user.slice/app" {
		t.Errorf("ownCgroup %q %v", p, ok)
	}
	if n := eventCount("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n", "oom_kill"); n != 1 {
		t.Errorf("oom_kill %d", n)
	}
}

// The mechanics under the limits: a process born in the sandbox's cgroup
// (CLONE_INTO_CGROUP), the cgroup gone afterwards. Controllers are not
// needed for that, so it runs where the limits themselves cannot.
func TestProcessBornInItsCgroup(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root")
	}
	mnt, err := cgroupV2Mount()
	if err != nil {
		t.Skip("needs a cgroup v2 mount:", err)
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	rel, _ := ownCgroup(string(self))
	cg, err := createCgroup(filepath.Join(mnt, rel), nil)
	if err != nil {
		t.Skip("cannot create a cgroup here:", err)
	}
	defer cg.remove()
	r, w, _ := os.Pipe()
	defer r.Close()
	pid, err := syscall.ForkExec("/bin/cat", []string{"cat", "/proc/self/cgroup"}, &syscall.ProcAttr{
		Files: []uintptr{0, w.Fd(), 2}, Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: cg.fd}})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	buf := make([]byte, 4096)
	n, _ := r.Read(buf)
	if !strings.Contains(string(buf[:n]), "0::"+strings.TrimPrefix(cg.dir, mnt)) {
		t.Errorf("the child was in %q, not %s", buf[:n], cg.dir)
	}
	cg.remove()
	if _, err := os.Stat(cg.dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there", cg.dir)
	}
}
