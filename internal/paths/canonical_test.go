package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestCanonical(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a", "b", "f"), []byte("12345"), 0o640))
	must(os.Symlink("a/b", filepath.Join(dir, "link")))
	must(os.Symlink(filepath.Join(dir, "link", "f"), filepath.Join(dir, "flink")))
	f := filepath.Join(dir, "a", "b", "f")
	for _, tc := range []struct {
		p, cwd, want string
	}{
		{f, "/", f},                                      // no symlink: the openat2 path on Linux
		{"b/f", filepath.Join(dir, "a"), f},              // relative to cwd
		{filepath.Join(dir, "link", "f"), "/", f},        // through a symlinked directory
		{filepath.Join(dir, "flink"), "/", f},            // a symlink to a file
		{filepath.Join(dir, "a", "..", "a/b/f"), "/", f}, // ".." is resolved the slow way
		{filepath.Join(dir, "a") + "/", "/", filepath.Join(dir, "a")},
	} {
		got, info, err := Canonical(tc.p, tc.cwd)
		if err != nil || got != tc.want {
			t.Errorf("Canonical(%q, %q) = %q, %v; want %q", tc.p, tc.cwd, got, err, tc.want)
			continue
		}
		want, err := os.Lstat(tc.want)
		must(err)
		if info.Name() != want.Name() || info.Mode() != want.Mode() || info.Size() != want.Size() ||
			!info.ModTime().Equal(want.ModTime()) || info.IsDir() != want.IsDir() {
			t.Errorf("Canonical(%q): info %v %v %d %v, Lstat says %v %v %d %v", tc.p,
				info.Name(), info.Mode(), info.Size(), info.ModTime(), want.Name(), want.Mode(), want.Size(), want.ModTime())
		}
	}
	if _, _, err := Canonical(filepath.Join(dir, "link", "none"), "/"); !errors.Is(err, ErrNoSuchPath) {
		t.Errorf("a missing path: %v, want ErrNoSuchPath", err)
	}
	for _, p := range []string{"", "a\x00b"} {
		if _, _, err := Canonical(p, "/"); err == nil {
			t.Errorf("Canonical(%q): no error", p)
		}
	}
}

func TestFileKind(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0o644:                             "a regular file",
		fs.ModeDir | 0o755:                "a directory",
		fs.ModeSocket:                     "a socket",
		fs.ModeNamedPipe:                  "a named pipe",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a block device",
		fs.ModeSymlink:                    "a special file",
		fs.ModeIrregular:                  "a special file",
	} {
		if got := FileKind(m); got != want {
			t.Errorf("FileKind(%v) = %q, want %q", m, got, want)
		}
	}
}
