package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The mechanics under the limits: a process born in the group
// (CLONE_INTO_CGROUP), the group gone afterwards. Controllers are not
// needed for that, so it runs where the limits themselves cannot.
func TestProcessBornInItsGroup(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root")
	}
	parent, err := ownDir()
	if err != nil {
		t.Skip("needs a cgroup v2 mount:", err)
	}
	g, err := create(parent, nil)
	if err != nil {
		t.Skip("cannot create a cgroup here:", err)
	}
	defer g.Remove()
	fd, ok := g.CloneFD()
	if !ok || g.Version() != "v2" {
		t.Fatalf("CloneFD %d %v, version %s", fd, ok, g.Version())
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	pid, err := syscall.ForkExec("/bin/cat", []string{"cat", "/proc/self/cgroup"}, &syscall.ProcAttr{
		Files: []uintptr{0, w.Fd(), 2}, Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	buf := make([]byte, 4096)
	n, _ := r.Read(buf)
	mnt, _ := V2Mount()
	if !strings.Contains(string(buf[:n]), "0::"+strings.TrimPrefix(g.Dir(), mnt)) {
		t.Errorf("the child was in %q, not %s", buf[:n], g.Dir())
	}
	g.Remove()
	if _, err := os.Stat(g.Dir()); !os.IsNotExist(err) {
		t.Errorf("%s is still there", g.Dir())
	}
}

// Groups whose nsrun died are removed; others, and live ones, stay.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"nsrun-999999999-1", "nsrun-" + itoa(os.Getpid()) + "-1", "other"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStale(dir)
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if want := "nsrun-" + itoa(os.Getpid()) + "-1 other"; strings.Join(left, " ") != want {
		t.Errorf("left %v, want %s", left, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
