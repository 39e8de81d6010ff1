//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// overlayFixture is bubblewrap's suite's layout: two lower directories
// (l1 with a and b, l2 with b), an upper directory holding its own a, a
// work directory, and a host file outside them all.
type overlayFixture struct {
	ws, l1, l2, up, wk, outside string
}

func newOverlayFixture(t *testing.T) overlayFixture {
	t.Helper()
	ws := workspace(t)
	f := overlayFixture{ws: ws, l1: filepath.Join(ws, "l1"), l2: filepath.Join(ws, "l2"), up: filepath.Join(ws, "up"),
		wk: filepath.Join(ws, "wk"), outside: filepath.Join(ws, "host.txt")}
	writeFile(t, filepath.Join(f.l1, "a"), "1")
	writeFile(t, filepath.Join(f.l1, "b"), "2")
	writeFile(t, filepath.Join(f.l2, "b"), "3")
	writeFile(t, filepath.Join(f.up, "a"), "4")
	if err := os.Mkdir(f.wk, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.outside, "host")
	return f
}

// unchanged checks the lower layers and the host file as the fixture
// made them.
func (f overlayFixture) unchanged(t *testing.T) {
	t.Helper()
	expect(t, "l1/a", readFile(t, filepath.Join(f.l1, "a")), "1")
	expect(t, "l1/b", readFile(t, filepath.Join(f.l1, "b")), "2")
	expect(t, "l2/b", readFile(t, filepath.Join(f.l2, "b")), "3")
	expect(t, "host file", readFile(t, f.outside), "host")
	for _, d := range []string{f.l1, f.l2} {
		if ents, _ := os.ReadDir(d); len(ents) != map[string]int{f.l1: 2, f.l2: 1}[d] {
			t.Errorf("%s holds %d entries after the sandbox", d, len(ents))
		}
	}
}

// TestBwrapOverlays: --overlay-src with --overlay, --tmp-overlay and
// --ro-overlay as bubblewrap lays them (the last source highest, under a
// host upper directory, a private one, or none), at places that are not
// their sources, over a read-only host root: writes go to the upper layer
// only, nowhere else.
func TestBwrapOverlays(t *testing.T) {
	f := newOverlayFixture(t)
	needUpperDirFS(t, f.ws)
	base := []string{"--ro-bind", "/", "/", "--tmpfs", "/run"}
	ovl := append(append([]string{}, base...), "--overlay-src", f.l1, "--overlay-src", f.l2, "--overlay", f.up, f.wk, "/run/x/y")
	expect(t, "--overlay: upper's a", bwrapHelper(t, ovl, "read", "/run/x/y/a"), `"4"`)
	expect(t, "--overlay: the higher source's b", bwrapHelper(t, ovl, "read", "/run/x/y/b"), `"3"`)
	expect(t, "--overlay: write b", bwrapHelper(t, ovl, "write", "/run/x/y/b"), "ok")
	expect(t, "--overlay: write outside it", bwrapHelper(t, ovl, "write", filepath.Join(f.ws, "new")), "EROFS")
	expect(t, "--overlay: the upper directory itself, read-only in the view", bwrapHelper(t, ovl, "write", filepath.Join(f.up, "c")), "EROFS")
	expect(t, "--overlay: written to the upper directory", readFile(t, filepath.Join(f.up, "b")), "x")
	f.unchanged(t)

	tmp := append(append([]string{}, base...), "--overlay-src", f.l1, "--overlay-src", f.l2, "--tmp-overlay", "/run/t")
	expect(t, "--tmp-overlay: b", bwrapHelper(t, tmp, "read", "/run/t/b"), `"3"`)
	expect(t, "--tmp-overlay: write", bwrapHelper(t, tmp, "write", "/run/t/b"), "ok")
	expect(t, "--tmp-overlay: write outside it", bwrapHelper(t, tmp, "write", f.outside), "EROFS")
	// Over the host directory itself, writable in the view: still only
	// the private layer changes.
	self := []string{"--bind", "/", "/", "--overlay-src", f.l1, "--tmp-overlay", f.l1}
	expect(t, "--tmp-overlay over its source: write", bwrapHelper(t, self, "write", filepath.Join(f.l1, "a")), "ok")
	expect(t, "--tmp-overlay over its source: remove", bwrapHelper(t, self, "remove", filepath.Join(f.l1, "b")), "ok")
	f.unchanged(t)

	ro := append(append([]string{}, base...), "--overlay-src", f.l1, "--overlay-src", f.l2, "--ro-overlay", "/run/r")
	expect(t, "--ro-overlay: a", bwrapHelper(t, ro, "read", "/run/r/a"), `"1"`)
	expect(t, "--ro-overlay: b", bwrapHelper(t, ro, "read", "/run/r/b"), `"3"`)
	expect(t, "--ro-overlay: write", bwrapHelper(t, ro, "write", "/run/r/b"), "EROFS")
	expect(t, "--ro-overlay: create", bwrapHelper(t, ro, "write", "/run/r/new"), "EROFS")
	// Under a writable host root too: the overlay has no upper layer.
	rw := []string{"--bind", "/", "/", "--overlay-src", f.l1, "--overlay-src", f.l2, "--ro-overlay", f.l1}
	expect(t, "--ro-overlay over a writable tree", bwrapHelper(t, rw, "write", filepath.Join(f.l1, "b")), "EROFS")
	f.unchanged(t)
	if ents, _ := os.ReadDir(f.up); len(ents) != 2 {
		t.Errorf("the upper directory holds %d entries, want a and b", len(ents))
	}
}

// TestBwrapOverlayLandlock: Landlock holds under bubblewrap's overlays
// (the report says so; the rules it is given, write on a writable overlay
// and read and execute only on a read-only one, are TestApplyOverlays's
// in internal/plan), and the payload writes the private layer.
func TestBwrapOverlayLandlock(t *testing.T) {
	f := newOverlayFixture(t)
	report := filepath.Join(workspace(t), "report.json")
	args := []string{"bwrap", "--ro-bind", "/", "/", "--tmpfs", "/run", "--overlay-src", f.l1, "--overlay-src", f.l2, "--ro-overlay", "/run/r",
		"--overlay-src", f.l1, "--tmp-overlay", "/run/t", "--", helperBin, "write", "/run/t/a"}
	r := runEnv(t, "/", []string{"NSRUN_REPORT=" + report}, args...)
	if r.code != 0 || r.stdout != "ok" {
		t.Fatalf("nsrun %v: %v", args, r)
	}
	var rep struct {
		Landlock struct{ Status string } `json:"landlock"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	if rep.Landlock.Status != "full" && rep.Landlock.Status != "partial" {
		t.Skipf("Landlock is %q here", rep.Landlock.Status)
	}
	f.unchanged(t)
}

// TestBwrapOverlayRefusals: what nsrun cannot lay as bubblewrap does is
// refused by name, exit 1, with the host unchanged: an upper and work
// directory on different file systems, a destination through a symlink,
// a missing source, an overlay as the root or over /dev. An upper
// directory that is a symlink is followed, as bubblewrap's realpath
// does, and the writes land where it points.
func TestBwrapOverlayRefusals(t *testing.T) {
	f := newOverlayFixture(t)
	needUpperDirFS(t, f.ws)
	target := filepath.Join(f.ws, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(f.ws, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	otherFS := "/dev/shm"
	if fi, err := os.Stat(otherFS); err != nil || !fi.IsDir() {
		otherFS = ""
	}
	ro := []string{"bwrap", "--ro-bind", "/", "/"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--overlay-src", f.l1, "--tmp-overlay", link}, "is a symlink inside the sandbox"},
		{[]string{"--overlay-src", f.l1, "--tmp-overlay", filepath.Join(link, "sub")}, "is a symlink inside the sandbox"},
		{[]string{"--overlay-src", filepath.Join(f.ws, "nope"), "--tmp-overlay", target}, "bwrap: Can't find source path " + filepath.Join(f.ws, "nope") + ": No such file or directory"},
		{[]string{"--overlay-src", f.l1, "--overlay", f.up, filepath.Join(f.ws, "nowork"), target}, "bwrap: Can't find source path"},
		{[]string{"--overlay-src", f.l1, "--overlay-src", f.l2, "--ro-overlay", "/"}, "bwrap: --ro-overlay / is not supported by nsrun's bubblewrap mode"},
		{[]string{"--overlay-src", f.l1, "--tmp-overlay", "/dev/x"}, "bwrap: --tmp-overlay /dev/x is not supported by nsrun's bubblewrap mode"},
	}
	if otherFS != "" {
		wk := filepath.Join(otherFS, "nsrun-test-work-"+filepath.Base(f.ws))
		if err := os.Mkdir(wk, 0o755); err == nil {
			defer os.Remove(wk)
			cases = append(cases, struct {
				args []string
				want string
			}{[]string{"--overlay-src", f.l1, "--overlay", f.up, wk, target}, "are on different file systems"})
		}
	}
	for _, c := range cases {
		argv := append(append(append([]string{}, ro...), c.args...), "--", helperBin, "write", filepath.Join(target, "x"))
		r := run(t, "/", argv...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || !strings.HasPrefix(r.stderr, "bwrap: ") {
			t.Errorf("nsrun %v: %v; want exit 1 and %q", argv, r, c.want)
		}
	}
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("%s holds %d entries after refusals", target, len(ents))
	}
	// An upper directory reached through a symlink: bubblewrap resolves it.
	upLink := filepath.Join(f.ws, "uplink")
	if err := os.Symlink("up", upLink); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, ro[1:]...), "--overlay-src", f.l1, "--overlay", upLink, f.wk, target)
	expect(t, "upper through a symlink", bwrapHelper(t, args, "write", filepath.Join(target, "y")), "ok")
	expect(t, "written in the directory the link names", readFile(t, filepath.Join(f.up, "y")), "x")
	if fi, err := os.Lstat(upLink); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link changed: %v %v", fi, err)
	}
	f.unchanged(t)
}

// TestBwrapNestedUserns holds nsrun's one named difference from
// bubblewrap (docs/BWRAP.md): with its layers on, a command in nsrun's
// bubblewrap mode makes no user namespace, with or without
// --disable-userns (bubblewrap allows one unless --disable-userns), so
// --assert-userns-disabled holds, and a bwrap run inside fails with
// bubblewrap's exit status. With NSRUN_BWRAP_LANDLOCK=off it gives
// bubblewrap's meaning: allowed, and -v says so, but --disable-userns
// still refuses them.
func TestBwrapNestedUserns(t *testing.T) {
	for _, opts := range [][]string{nil, {"--unshare-user", "--disable-userns"}} {
		args := append([]string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}, opts...)
		expect(t, "unshare a user namespace inside, options "+strings.Join(opts, " "), bwrapHelper(t, args, "unshare-user"), "EPERM")
	}
	r := run(t, "/", "bwrap", "--ro-bind", "/", "/", "--assert-userns-disabled", "--", helperBin, "unshare-user")
	if r.code != 0 || r.stdout != "EPERM" {
		t.Errorf("--assert-userns-disabled: %v", r)
	}
	r = run(t, "/", "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", nsrunBin, "bwrap", "--ro-bind", "/", "/", "true")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "bwrap: ") {
		t.Errorf("nested bwrap: %v; want exit 1 and one bwrap: line", r)
	}

	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1) to make a user namespace with (the helper, a Go program, has threads: EINVAL)")
	}
	// unshare(1) exits 1 when the kernel refuses.
	noLandlock := []string{"NSRUN_BWRAP_LANDLOCK=off", "NSRUN_BWRAP_VERBOSE=1"}
	for _, c := range []struct {
		opts    []string
		allowed bool
	}{{nil, true}, {[]string{"--unshare-user", "--disable-userns"}, false}, {[]string{"--unshare-user", "--assert-userns-disabled"}, false}} {
		argv := append(append([]string{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}, c.opts...), "--", unshare, "--user", "true")
		r := runEnv(t, "/", noLandlock, argv...)
		if (r.code == 0) != c.allowed {
			t.Errorf("Landlock off, %q: %v; want a user namespace made: %v", c.opts, r, c.allowed)
		}
		if said := strings.Contains(r.stderr, "nested user namespaces allowed"); said != c.allowed {
			t.Errorf("Landlock off, %q: -v says nested user namespaces are allowed: %v\n%s", c.opts, said, r.stderr)
		}
	}
	if _, err := os.Stat("/usr/bin/bwrap"); err == nil {
		r := runEnv(t, "/", noLandlock[:1], "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--",
			"/usr/bin/bwrap", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", helperBin, "read", "/proc/self/comm")
		if r.code != 0 || r.stdout != `"helper\n"` {
			t.Errorf("bubblewrap inside nsrun as bwrap, Landlock off: %v", r)
		}
	}
}

// needUpperDirFS skips where dir is on overlayfs (a container's root): the
// kernel takes no overlay upper directory there ("upperdir: invalid
// argument"), for bubblewrap as for nsrun.
func needUpperDirFS(t *testing.T, dir string) {
	t.Helper()
	if fsType := shimsFileSystem(t, dir); fsType == 0x794c7630 {
		t.Skipf("%s is on overlayfs, where the kernel takes no overlay upper directory", dir)
	}
}
