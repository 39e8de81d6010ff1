package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The openat2 fast path answers only for a path without a symlink or "..",
// and then as the slow way would.
func TestCanonicalFast(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, "d")
	if got, info, ok := fastOnce(d, d); !ok || got != d || !info.IsDir() || info.Name() != "d" {
		t.Errorf("a plain directory: %q, %v, %v", got, info, ok)
	}
	for _, p := range []string{filepath.Join(dir, "l"), filepath.Join(dir, "l", "."), filepath.Join(dir, "none")} {
		if _, _, ok := fastOnce(p, p); ok {
			t.Errorf("%s: answered by the fast path", p)
		}
	}
	if _, _, ok := fastOnce(d, dir+"/x/../d"); ok {
		t.Error("a path given with \"..\": answered by the fast path")
	}
}

// A Resolver answers a run of paths as Canonical answers each, keeps
// only the last directory open, and never answers through a symlink to
// the directory it holds.
func TestResolver(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, "d")
	for _, p := range []string{d, filepath.Join(d, "a"), filepath.Join(d, "b"), filepath.Join(dir, "e")} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(d, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"d", "l"}, {"a", "d/la"}, {"none", "d/dangling"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := fds()
	var r Resolver
	for _, c := range []struct {
		p, want string
		fast    bool
	}{
		{"d/a", d + "/a", true},
		{"d/b", d + "/b", true}, // the directory kept
		{"d/f", d + "/f", true},
		{"l/a", d + "/a", false}, // through a symlink to the directory kept
		{"d/la", d + "/a", false},
		{"d/dangling", "", false},
		{"d/none", "", false},
		{"d/a/../b", d + "/b", false},
		{"e", dir + "/e", true}, // another directory
		{"d/a", d + "/a", true},
		{"/", "/", true},
	} {
		if _, _, fast := fastOnce(Abs(c.p, dir), c.p); fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.p, fast, c.fast)
		}
		got, info, err := r.Canonical(c.p, dir)
		want, wantInfo, wantErr := Canonical(c.p, dir)
		if got != c.want || got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("%s: %q, %v; Canonical says %q, %v", c.p, got, err, want, wantErr)
			continue
		}
		if err == nil && (info.Name() != wantInfo.Name() || info.Mode() != wantInfo.Mode() || inode(info) != inode(wantInfo)) {
			t.Errorf("%s: %v %v, Canonical's %v %v", c.p, info.Name(), info.Mode(), wantInfo.Name(), wantInfo.Mode())
		}
		if c.fast && r.dir != filepath.Dir(c.want) {
			t.Errorf("%s: the directory kept is %q", c.p, r.dir)
		}
	}
	if n := fds(); n != before+1 {
		t.Errorf("%d descriptors open with a directory kept, %d before", n, before)
	}
	r.Close()
	if n := fds(); n != before {
		t.Errorf("%d descriptors open after Close, %d before", n, before)
	}
}

// inode is the device and inode of a stat result of either package.
func inode(info fs.FileInfo) [2]uint64 {
	switch st := info.Sys().(type) {
	case *unix.Stat_t:
		return [2]uint64{st.Dev, st.Ino}
	case *syscall.Stat_t:
		return [2]uint64{st.Dev, st.Ino}
	}
	return [2]uint64{}
}

// fastOnce is Resolver.fast on a Resolver of its own.
func fastOnce(abs, given string) (string, fs.FileInfo, bool) {
	var r Resolver
	defer r.Close()
	return r.fast(abs, given)
}

// The directory a Resolver holds, swapped between two paths it answers
// (moved behind a symlink to it, or moved away for another directory):
// its answer may be the old directory's, never a path the init would take
// for that file. Through the symlink the no-symlink open the init makes
// is refused; in the other directory the file there is another inode.
func TestResolverDirectorySwapped(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(base, "d")
	for _, swap := range []struct {
		name string
		do   func() error
	}{
		{"symlink", func() error { return os.Symlink(d+".orig", d) }},
		{"another directory", func() error {
			if err := os.Mkdir(d, 0o755); err != nil {
				return err
			}
			return os.Mkdir(filepath.Join(d, "b"), 0o755)
		}},
	} {
		t.Run(swap.name, func(t *testing.T) {
			os.RemoveAll(d)
			os.RemoveAll(d + ".orig")
			for _, p := range []string{d, d + "/a", d + "/b"} {
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var r Resolver
			defer r.Close()
			if _, _, err := r.Canonical(d+"/a", "/"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(d, d+".orig"); err != nil {
				t.Fatal(err)
			}
			if err := swap.do(); err != nil {
				t.Fatal(err)
			}
			got, info, err := r.Canonical(d+"/b", "/")
			if err != nil {
				t.Fatal(err)
			}
			if want, wantInfo, _ := Canonical(d+"/b", "/"); got == want && inode(info) == inode(wantInfo) {
				return
			}
			fd, err := unix.Openat2(unix.AT_FDCWD, got, &unix.OpenHow{
				Flags:   unix.O_PATH | unix.O_CLOEXEC,
				Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
			})
			if err != nil {
				if !errors.Is(err, unix.ELOOP) {
					t.Errorf("%s: %v, want ELOOP", got, err)
				}
				return
			}
			defer unix.Close(fd)
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err != nil {
				t.Fatal(err)
			}
			if [2]uint64{st.Dev, st.Ino} == inode(info) {
				t.Errorf("%s: answered as the inode now there, which was never there", got)
			}
		})
	}
}

// Paths through magic links (/proc/PID/root, fd, cwd, exe), "..", "."
// and a trailing slash, answered in a run by one Resolver, are answered
// as Canonical answers each.
func TestResolverMagicLinks(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "d"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pid := "/proc/" + strconv.Itoa(os.Getpid())
	fd := strconv.Itoa(int(f.Fd()))
	var r Resolver
	defer r.Close()
	for _, p := range []string{
		pid + "/fd", pid + "/fd/" + fd, pid + "/fd/" + fd + "/.", pid + "/root", pid + "/root/etc", pid + "/root" + dir + "/d",
		pid + "/cwd", pid + "/exe", "/proc/self", "/proc/self/fd/" + fd, "/proc/thread-self/root/etc", "/dev/fd/" + fd,
		dir + "/d/.", dir + "/d/", dir + "/./d", dir + "/d/../d", "/proc/../" + dir[1:] + "/d", "/",
	} {
		got, info, err := r.Canonical(p, "/")
		want, wantInfo, wantErr := Canonical(p, "/")
		if got != want || (err == nil) != (wantErr == nil) || err == nil && inode(info) != inode(wantInfo) {
			t.Errorf("%s: %q %v; Canonical says %q %v", p, got, err, want, wantErr)
		}
	}
}
