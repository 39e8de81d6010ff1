package mounts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The component walk that stands in for openat2 answers as openat2 does.
func TestWalkNoSymlinksAgreesWithOpenat2(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"a/l": "b", "c/abs": "/etc", "c/dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(root)
	outcome := func(fd int, err error) string {
		if err != nil {
			var errno unix.Errno
			errors.As(err, &errno)
			return unix.ErrnoName(errno)
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err.Error()
		}
		return "ok"
	}
	for _, p := range []string{"a", "a/b", "a/f", "a/l", "a/l/x", "c/abs", "c/dangling", "missing", "a/f/x", "a/b/", "a/l/", "a/l/.", "."} {
		want := outcome(unix.Openat2(root, p, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}))
		if got := outcome(walkNoSymlinks(root, p, false)); got != want {
			t.Errorf("%s: walk %s, openat2 %s", p, got, want)
		}
		abs := filepath.Join(dir, p)
		want = outcome(unix.Openat2(unix.AT_FDCWD, abs, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}))
		if got := outcome(walkNoSymlinks(unix.AT_FDCWD, abs, false)); got != want {
			t.Errorf("%s: walk %s, openat2 %s", abs, got, want)
		}
		want = outcome(unix.Openat2(root, p, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}))
		if got := outcome(walkNoSymlinks(root, p, true)); got != want {
			t.Errorf("%s, the link itself: walk %s, openat2 %s", p, got, want)
		}
	}
	if got := outcome(walkNoSymlinks(unix.AT_FDCWD, "/proc/self/fd/0", false)); got != "ELOOP" {
		t.Errorf("a magic link: %s", got)
	}
}
