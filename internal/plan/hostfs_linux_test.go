package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nsrun/nsrun/mounts"
)

func TestSymlinksAlong(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "real", "ws", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "real", "real/ws/inner": "sub", "abs": filepath.Join(base, "real"),
		"chain": "link2", "link2": "real/ws"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		want []mounts.Link
	}{
		{filepath.Join(base, "real", "ws"), nil},
		{filepath.Join(base, "link", "ws", "inner"), []mounts.Link{
			{Path: filepath.Join(base, "link"), Target: "real"},
			{Path: filepath.Join(base, "real", "ws", "inner"), Target: "sub"},
		}},
		{filepath.Join(base, "abs", "ws"), []mounts.Link{{Path: filepath.Join(base, "abs"), Target: filepath.Join(base, "real")}}},
		{filepath.Join(base, "link", "missing", "x"), []mounts.Link{{Path: filepath.Join(base, "link"), Target: "real"}}},
		// A link to a link: both are on the way.
		{filepath.Join(base, "chain", "inner"), []mounts.Link{
			{Path: filepath.Join(base, "chain"), Target: "link2"},
			{Path: filepath.Join(base, "link2"), Target: "real/ws"},
			{Path: filepath.Join(base, "real", "ws", "inner"), Target: "sub"},
		}},
	} {
		got := SymlinksAlong(tc.path)
		for i, l := range got {
			fi, err := os.Lstat(l.Path)
			if err != nil || l.ID != Identity(fi) || l.ID == (mounts.Identity{}) {
				t.Errorf("%s: identity %+v", l.Path, l.ID)
			}
			got[i].ID = mounts.Identity{}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SymlinksAlong(%s):\n got %+v\nwant %+v", tc.path, got, tc.want)
		}
	}
}

// PathInRoot follows links inside root, an absolute target from root, and
// takes what is missing as it is; SymlinksAlong walks the same way on the
// host and stops after 40 links.
func TestPathInRoot(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"etc", "run/resolve", "usr/etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"etc/resolv.conf": "../run/resolve/stub.conf", "etc/hosts": "/usr/etc/hosts", "etc/loop": "loop2", "etc/loop2": "loop",
		"etc/dir": "/usr/etc",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]string{
		"/etc/resolv.conf": "/run/resolve/stub.conf", // missing at the end: taken as it is
		"/etc/hosts":       "/usr/etc/hosts",         // absolute: from root, not from the host's /
		"/etc/dir/x/../y":  "/usr/etc/y",
		"/etc/passwd":      "/etc/passwd",
		"/nowhere/a":       "/nowhere/a",
		"/etc/loop":        "/etc/loop", // the 41st link is taken as it is
	} {
		if got := PathInRoot(root, p); got != want {
			t.Errorf("PathInRoot(%s) = %s, want %s", p, got, want)
		}
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 41 {
		if err := os.Symlink(fmt.Sprintf("l%d", i+1), filepath.Join(base, fmt.Sprintf("l%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := SymlinksAlong(filepath.Join(base, "l0")); len(got) != 40 {
		t.Errorf("SymlinksAlong over a chain of 41 links: %d, want 40", len(got))
	}
}
