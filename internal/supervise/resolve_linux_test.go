package supervise

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

func TestResolveAsTheCallerSees(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a", "b", "f"), []byte("x"), 0o644))
	must(os.Symlink("b/f", filepath.Join(dir, "a", "rel")))
	must(os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "abs")))
	must(os.Symlink("loop", filepath.Join(dir, "loop")))
	must(os.Symlink("/nonexistent-nsrun", filepath.Join(dir, "dangling")))
	f, err := os.Open(filepath.Join(dir, "a", "b", "f"))
	must(err)
	defer f.Close()

	root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY, 0)
	must(err)
	defer unix.Close(root)
	start, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	must(err)
	defer unix.Close(start)
	// The caller is this process: /proc/self means it, as it would for
	// the caller of a notification.
	who := caller{tid: unix.Gettid(), tgid: os.Getpid()}
	file := filepath.Join(dir, "a", "b", "f")
	for _, tc := range []struct {
		path   string
		follow bool
		want   string // the object's path, or an errno name
	}{
		{"a/b/f", true, file},
		{file, true, file},
		{"a/rel", true, file},
		{"a/rel", false, filepath.Join(dir, "a", "rel")},
		{"abs/f", true, file},
		{"abs/../b/f", true, file},
		{"a/b/f/", true, "ENOTDIR"},
		{"a/b/", true, filepath.Join(dir, "a", "b")},
		{"loop", true, "ELOOP"},
		{"dangling", true, "ENOENT"},
		{"dangling", false, filepath.Join(dir, "dangling")},
		{"a/b/f/x", true, "ENOTDIR"},
		{"", true, "ENOENT"},
		{"/proc/self/fd/" + strconv.Itoa(int(f.Fd())), true, file},
		{"/proc/thread-self/fd/" + strconv.Itoa(int(f.Fd())), true, file},
		{"/dev/fd/" + strconv.Itoa(int(f.Fd())), true, file},
		{"/proc/" + strconv.Itoa(os.Getpid()) + "/cwd", true, mustGetwd(t)},
		// Another process's entries are not followed: they may be in
		// another mount namespace.
		{"/proc/1/cwd", true, "EACCES"},
		{"/proc/1/root/etc", true, "EACCES"},
	} {
		fd, err := resolve(root, start, tc.path, tc.follow, func() (caller, error) { return who, nil })
		got := ""
		if err != nil {
			got = unix.ErrnoName(err.(unix.Errno))
		} else {
			got, err = location(fd)
			if err != nil {
				t.Fatal(err)
			}
			unix.Close(fd)
		}
		if got != tc.want {
			t.Errorf("%q (follow %v): %s, want %s", tc.path, tc.follow, got, tc.want)
		}
	}
	// An absolute path needs no start directory.
	fd, err := resolve(root, -1, file, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// An object with no name anywhere (an unlinked file) has no location.
func TestLocationOfUnlinkedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gone")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Remove(p)
	if loc, err := location(int(f.Fd())); err != nil || loc != "" {
		t.Errorf("%q %v", loc, err)
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if loc, err := location(int(r.Fd())); err != nil || loc != "" {
		t.Errorf("pipe: %q %v", loc, err)
	}
}
