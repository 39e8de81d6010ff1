//go:build linux

package landlock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Where openat2 is refused, rule paths are walked a name at a time: the
// same file as openat2 finds, a final symlink itself, and ELOOP for a
// symlink on the way (the tree changed since the rules were made).
func TestWalkNoSymlinksResolvesAsOpenat2(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	same := func(path string, fd int) bool {
		var a, b unix.Stat_t
		if unix.Fstat(fd, &a) != nil || unix.Lstat(path, &b) != nil {
			return false
		}
		return a.Dev == b.Dev && a.Ino == b.Ino
	}
	for _, path := range []string{"/", dir, filepath.Join(dir, "a", "b"), filepath.Join(dir, "link")} {
		fd, err := walkNoSymlinks(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !same(path, fd) {
			t.Errorf("%s: another file", path)
		}
		unix.Close(fd)
	}
	for path, want := range map[string]error{
		filepath.Join(dir, "link", "b"): unix.ELOOP,
		filepath.Join(dir, "gone"):      unix.ENOENT,
		dir + "/a/..":                   unix.EINVAL,
		"relative":                      unix.EINVAL,
	} {
		if fd, err := walkNoSymlinks(path); !errors.Is(err, want) {
			if err == nil {
				unix.Close(fd)
			}
			t.Errorf("%s: %v, want %v", path, err, want)
		}
	}
}
