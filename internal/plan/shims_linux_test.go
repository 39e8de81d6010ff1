package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/mounts"
)

func TestShimLayer(t *testing.T) {
	const dir = "/home/me/.pyenv/shims"
	rule := func(canon string, a mounts.Access) Rule { return Rule{Canon: canon, Access: a, Dir: true} }
	for _, tc := range []struct {
		name  string
		rules []Rule
		ok    bool
		why   string
	}{
		{"no rule: the root, read-only", nil, true, ""},
		{"rules elsewhere", []Rule{rule("/tmp", mounts.Tmpfs), rule("/home/me/proj", mounts.ReadWrite)}, true, ""},
		{"under a read-only rule", []Rule{rule("/home/me", mounts.ReadOnly)}, true, ""},
		{"the deepest rule above decides", []Rule{rule("/home", mounts.ReadWrite), rule("/home/me", mounts.ReadOnly)}, true, ""},
		{"writable: the tool writes on the host, as asked", []Rule{rule("/home/me/.pyenv", mounts.ReadWrite)}, false, "/home/me/.pyenv is rw"},
		{"an overlay of the caller's already", []Rule{rule("/home/me", mounts.Overlay)}, false, "/home/me is overlay"},
		{"hidden", []Rule{rule("/home/me", mounts.Deny)}, false, "/home/me is deny"},
		{"under a tmpfs", []Rule{rule("/home", mounts.Tmpfs)}, false, "/home is tmpfs"},
		{"read-only, named by a rule", []Rule{rule(dir, mounts.ReadOnly)}, false, "a rule names " + dir},
		{"a rule below it", []Rule{rule(dir+"/python", mounts.Deny)}, false, "a rule names " + dir + "/python"},
		{"another host path shown there", []Rule{{Canon: "/home/me", Host: "/srv/other", Access: mounts.ReadOnly, Dir: true}}, false, "/home/me shows another host path"},
		{"a sibling's rule", []Rule{rule("/home/me/.pyenv/shimsx", mounts.ReadWrite)}, true, ""},
	} {
		ok, why := ShimLayer(dir, tc.rules)
		if ok != tc.ok || why != tc.why {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, ok, why, tc.ok, tc.why)
		}
	}
}

func TestShimDirs(t *testing.T) {
	home := t.TempDir()
	other := t.TempDir()
	for _, d := range []string{".pyenv/shims", ".nodenv/shims", "real-rbenv/shims"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// rbenv's root through a symlink: the canonical directory counts.
	if err := os.Symlink("real-rbenv", filepath.Join(home, ".rbenv")); err != nil {
		t.Fatal(err)
	}
	// A file where a shims directory would be is none.
	if err := os.MkdirAll(filepath.Join(other, "pyenv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "pyenv", "shims"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	home, _ = filepath.EvalSymlinks(home)
	got := ShimDirs([]string{"HOME=" + home, "PYENV_ROOT=" + filepath.Join(other, "pyenv"), "NODENV_ROOT=relative"})
	want := []string{filepath.Join(home, ".pyenv/shims"), filepath.Join(home, "real-rbenv/shims"), filepath.Join(home, ".nodenv/shims")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// The variable and HOME leading to the same directory count once; no
	// HOME and no variable, nothing.
	got = ShimDirs([]string{"HOME=" + home, "PYENV_ROOT=" + filepath.Join(home, ".pyenv")})
	if len(got) != 3 {
		t.Errorf("got %v", got)
	}
	if got := ShimDirs([]string{"PATH=/usr/bin"}); got != nil {
		t.Errorf("no HOME: got %v", got)
	}
}

func TestAddShimLayers(t *testing.T) {
	dir := t.TempDir()
	var logged []string
	logf := func(f string, a ...any) { logged = append(logged, f) }
	var in mounts.Input
	AddShimLayers(&in, []string{dir, filepath.Join(dir, "gone")}, []Rule{{Canon: "/tmp", Access: mounts.ReadOnly, Dir: true}}, logf)
	if len(in.Rules) != 1 || in.Rules[0].Path != dir || in.Rules[0].Access != mounts.Overlay || in.Rules[0].ID == (mounts.Identity{}) {
		t.Errorf("rules %+v", in.Rules)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "discarded") || !strings.Contains(logged[1], "no writable layer") {
		t.Errorf("logged %q", logged)
	}
}

func TestShimLowerFileSystems(t *testing.T) {
	if ok, why := shimLower("/proc/self"); ok || !strings.Contains(why, "type 0x9fa0") {
		t.Errorf("/proc: got %v %q, want a refusal naming procfs' type", ok, why)
	}
	if ok, why := shimLower("/dev/shm"); !ok {
		t.Errorf("a tmpfs: %s", why)
	}
}
