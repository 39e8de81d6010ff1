//go:build linux

package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// tinyImage is a root filesystem as debootstrap lays one out, in little:
// /bin, /lib and /lib64 are symlinks into /usr, there is /etc but no /tmp,
// /dev, /proc, /sys, /run, /work, and no /etc/passwd. It holds sh and a few
// programs with their libraries, and the helper at /helper.
func tinyImage(t *testing.T) string {
	t.Helper()
	img := workspace(t)
	for _, d := range []string{"usr/bin", "usr/lib", "usr/lib64", "etc"} {
		if err := os.MkdirAll(filepath.Join(img, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"bin", "usr/bin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}} {
		if err := os.Symlink(l[1], filepath.Join(img, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	copyTo := func(src, dst string) {
		t.Helper()
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, prog := range []string{"sh", "cat", "ls", "id", "whoami", "pwd", "readlink", "touch", "mkdir"} {
		path, err := exec.LookPath(prog)
		if err != nil {
			t.Fatal(err)
		}
		path, _ = filepath.EvalSymlinks(path)
		copyTo(path, filepath.Join(img, "usr/bin", prog))
		out, err := exec.Command("ldd", path).Output()
		if err != nil {
			continue // static
		}
		for _, f := range strings.Fields(string(out)) {
			if !strings.HasPrefix(f, "/") {
				continue
			}
			real, _ := filepath.EvalSymlinks(f)
			// Where the loader looks: the path ldd names, under /usr.
			dst := filepath.Join(img, "usr", strings.TrimPrefix(strings.TrimPrefix(f, "/usr"), "/"))
			if _, err := os.Stat(dst); err != nil {
				copyTo(real, dst)
			}
		}
	}
	copyTo(helperBin, filepath.Join(img, "helper"))
	return img
}

// treeSum names every entry of a directory tree with its type and
// content's hash: equal sums, an unchanged tree.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := rel + " " + d.Type().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			line += " " + hex.EncodeToString(h[:8])
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// failsWith asserts exit 125 and one line that holds every want.
func failsWith(t *testing.T, what string, r result, want ...string) {
	t.Helper()
	if r.code != 125 || strings.Count(r.stderr, "\n") != 0 || !strings.HasPrefix(r.stderr, "nsrun: ") {
		t.Errorf("%s: want exit 125 and one line: %v", what, r)
		return
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("%s: the message lacks %q: %s", what, w, r.stderr)
		}
	}
}

// --bind SRC DEST shows SRC at DEST: what the payload writes there lands
// in SRC; --ro-bind refuses writes. A DEST missing inside is made in a
// mirror of its deepest existing directory, never on the host.
func TestBindShowsSourceAtDest(t *testing.T) {
	src := workspace(t)
	writeFile(t, filepath.Join(src, "in"), "host\n")
	ro := workspace(t)
	writeFile(t, filepath.Join(ro, "keep"), "ro")
	roBefore := treeSum(t, ro)
	rootBefore := listDir(t, "/")
	dest := "/nsrun-bind-test/a/b"
	rep := filepath.Join(src, "r.json")
	r := run(t, "/", "--report", rep, "--bind", src, dest, "--ro-bind", ro, "/etc/nsrun-ro-bind", "--", "/bin/sh", "-c",
		"cat "+dest+"/in; echo payload > "+dest+"/out; "+helperBin+" write /etc/nsrun-ro-bind/keep; "+helperBin+" write /etc/nsrun-ro-bind/new; "+
			helperBin+" mkdir /nsrun-bind-test/c; "+helperBin+" kind /nsrun-bind-test; ls /etc/nsrun-ro-bind")
	expect(t, "inside", r.stdout, "host\nEROFS\nEROFS\nEROFS\ndir\nkeep")
	expect(t, "written through DEST, on the host", readFile(t, filepath.Join(src, "out")), "payload\n")
	expect(t, "--ro-bind source", treeSum(t, ro), roBefore)
	if got := listDir(t, "/"); got != rootBefore {
		t.Errorf("the host's / changed: %s", got)
	}
	for _, p := range []string{"/nsrun-bind-test", "/etc/nsrun-ro-bind"} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists on the host: %v", p, err)
		}
	}
	var got struct {
		Filesystem struct {
			From    map[string]string
			Created []string
			RW, RO  []string
		}
	}
	decodeReport(t, rep, &got)
	if got.Filesystem.From[dest] != src || got.Filesystem.From["/etc/nsrun-ro-bind"] != ro {
		t.Errorf("report from: %v", got.Filesystem.From)
	}
	if strings.Join(got.Filesystem.Created, " ") != "/etc/nsrun-ro-bind "+dest && strings.Join(got.Filesystem.Created, " ") != dest+" /etc/nsrun-ro-bind" {
		t.Errorf("report created: %v", got.Filesystem.Created)
	}
	// An existing DEST is mounted on as it is; --bind A A is --rw A.
	r = run(t, "/", "--bind", src, src, "--", helperBin, "write", filepath.Join(src, "same"))
	expect(t, "--bind A A", r.stdout, "ok")
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// A root image that lacks /tmp, /dev, /proc, /sys, /etc/passwd and a
// rule's DEST works, and the image is left as it was: the manual's
// example (docs/MANUAL.md, "Places the tree lacks"), on a tree laid out as debootstrap lays one out.
func TestRootImageLackingMountPoints(t *testing.T) {
	img := tinyImage(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "proj", "file"), "proj")
	before := treeSum(t, img)
	// /nsrun-work: a place the host lacks too (a tmpfs names a place inside).
	r := run(t, "/", "--root", img, "--tmpfs", "/nsrun-work", "--chdir", "/nsrun-work", "--", "/bin/sh", "-c",
		"pwd; echo x > f && cat f; ls /dev/null /proc/self/status /sys/class/net; echo t > /tmp/t && cat /tmp/t; whoami")
	if r.code != 0 {
		t.Fatalf("the manual's example: %v", r)
	}
	expect(t, "the manual's example", r.stdout, "/nsrun-work\nx\n/dev/null\n/proc/self/status\n\n/sys/class/net:\nlo\nt\n"+userName(t))
	r = run(t, "/", "--root", img, "--bind", filepath.Join(ws, "proj"), "/srv/proj", "--", "/helper", "read", "/srv/proj/file")
	expect(t, "a workspace bound into the image", r.stdout, `"proj"`)
	// A writable root of the image: nothing is made in it on the host.
	r = run(t, "/", "--root", img, "--", "/helper", "write", "/new")
	expect(t, "write to the image's root", r.stdout, "EROFS")
	if got := treeSum(t, img); got != before {
		t.Errorf("the image changed:\n%s\nwas\n%s", got, before)
	}
	// A symlink in the image is never followed to make a mount point: an
	// absolute one would point into the host while the view is built.
	if err := os.Symlink("/etc", filepath.Join(img, "hostetc")); err != nil {
		t.Fatal(err)
	}
	r = run(t, "/", "--root", img, "--bind", ws, "/hostetc/nsrun-escape", "--", "/helper", "ids")
	failsWith(t, "a mount point through a symlink of the image", r, "--bind "+ws+" /hostetc/nsrun-escape", "/hostetc is a symlink")
	if _, err := os.Lstat("/etc/nsrun-escape"); !os.IsNotExist(err) {
		t.Errorf("made on the host through the image's symlink: %v", err)
	}
}

// userName is the name whoami gives for the caller inside an image with
// no /etc/passwd: the caller's own.
func userName(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// --dir, --symlink and --file make what bubblewrap's do, in a mirror or a
// tmpfs, never on the host; --file is a read-only copy.
func TestDirSymlinkAndFile(t *testing.T) {
	ws := workspace(t)
	hosts := filepath.Join(ws, "hosts")
	writeFile(t, hosts, "10.0.0.1 nsrun.test\n")
	r := run(t, "/", "--dir", "/nsrun-dir-test/d", "--symlink", "../usr/lib", "/nsrun-dir-test/lib", "--symlink", "/etc/hostname", "/tmp/link",
		"--file", hosts, "/etc/nsrun-hosts", "--file", hosts, "/tmp/x/hosts", "--", "/bin/sh", "-c",
		helperBin+" kind /nsrun-dir-test/d; ls -A /nsrun-dir-test/d | wc -l; "+helperBin+" readlink /nsrun-dir-test/lib; "+
			helperBin+" readlink /tmp/link; cat /etc/nsrun-hosts /tmp/x/hosts; "+helperBin+" write /etc/nsrun-hosts; "+helperBin+" write /nsrun-dir-test/d/x")
	expect(t, "inside", r.stdout, "dir\n0\n../usr/lib\n/etc/hostname\n10.0.0.1 nsrun.test\n10.0.0.1 nsrun.test\nEROFS\nEROFS")
	if _, err := os.Lstat("/nsrun-dir-test"); !os.IsNotExist(err) {
		t.Errorf("made on the host: %v", err)
	}
	// An existing directory stays as it is.
	r = run(t, "/", "--dir", "/etc", "--", helperBin, "read", "/etc/hostname")
	if r.code != 0 || r.stdout == `""` {
		t.Errorf("--dir on an existing directory: %v", r)
	}
	for _, tc := range []struct {
		what string
		args []string
		want []string
	}{
		{"a symlink where a file is", []string{"--symlink", "x", "/etc/hostname"}, []string{"--symlink x /etc/hostname", "a file is there"}},
		{"a directory where a file is", []string{"--dir", "/etc/hostname"}, []string{"--dir /etc/hostname", "a file is there"}},
		{"a copy of a directory", []string{"--file", ws, "/etc/x"}, []string{"--file " + ws + " /etc/x", "only a regular file"}},
		{"a copy of a missing file", []string{"--file", filepath.Join(ws, "nope"), "/etc/x"}, []string{"--file", "no such file"}},
		{"a relative DEST", []string{"--file", hosts, "etc/x"}, []string{"--file", "etc/x", "not an absolute path"}},
		{"a symlink without a DEST", []string{"--symlink", "x"}, []string{"--symlink", "two arguments"}},
		{"something below a symlink", []string{"--symlink", "/etc", "/nsrun-l", "--dir", "/nsrun-l/x"}, []string{"/nsrun-l", "symlink"}},
	} {
		failsWith(t, tc.what, run(t, "/", append(tc.args, "--", "/bin/true")...), tc.want...)
	}
}

// Bad input to the new forms: one line naming the option, exit 125, and
// nothing runs.
func TestBindBadInput(t *testing.T) {
	ws := workspace(t)
	file := filepath.Join(ws, "f")
	writeFile(t, file, "x")
	other := workspace(t)
	for _, tc := range []struct {
		what string
		args []string
		want []string
	}{
		{"DEST relative", []string{"--bind", ws, "work"}, []string{"--bind " + ws + " work", "not an absolute path"}},
		{"SRC missing", []string{"--bind", filepath.Join(ws, "nope"), "/work"}, []string{"--bind", "nope", "no such file"}},
		{"one argument", []string{"--ro-bind", ws}, []string{"--ro-bind", "needs two arguments"}},
		{"the = form", []string{"--bind=" + ws, "/w"}, []string{"--bind", "two arguments"}},
		{"conflicting DESTs", []string{"--bind", ws, "/w", "--ro-bind", other, "/w"}, []string{"/w", "two different things at one place"}},
		{"a host path and another", []string{"--rw", ws, "--bind", other, ws}, []string{ws, "two different things"}},
		{"a file onto a directory", []string{"--bind", file, "/etc"}, []string{"--bind " + file + " /etc", "a directory is there"}},
		{"DEST under /proc", []string{"--bind", ws, "/proc/x"}, []string{"--bind", "/proc is built by nsrun"}},
		{"DEST missing in a writable tree", []string{"--rw", ws, "--bind", other, filepath.Join(ws, "sub", "x")},
			[]string{"--bind " + other + " " + filepath.Join(ws, "sub", "x"), "does not exist", "it would be made on the host"}},
		{"DEST through a symlink", []string{"--bind", ws, "/lib64/x"}, []string{"/lib64 is a symlink"}},
		{"a bind of a device", []string{"--bind", "/dev/null", "/x"}, []string{"--bind /dev/null /x", "character device"}},
	} {
		r := run(t, "/", append(tc.args, "--", "/bin/touch", filepath.Join(ws, "ran"))...)
		failsWith(t, tc.what, r, tc.want...)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); !os.IsNotExist(err) {
		t.Error("a command ran")
	}
	if _, err := os.Stat(filepath.Join(ws, "sub")); !os.IsNotExist(err) {
		t.Errorf("a mount point was made in the writable tree on the host: %v", err)
	}
}

// However the root of the view is made (the host's, an image, mirrored to
// hold a missing mount point, an overlay), the host's old root is detached:
// pivot_root leaves it stacked on the new root, where ".." from a mount
// below would reach it. Landlock is off so that the mounts alone answer.
func TestOldRootIsDetached(t *testing.T) {
	img := tinyImage(t)
	kept := keptDir(t)
	script := `set -e; [ "$(ls /)" = "$(ls /usr/..)" ]; [ "$(ls /)" = "$(ls /etc/..)" ]; cat /proc/self/mountinfo`
	for _, tc := range []struct {
		what string
		args []string
	}{
		{"the host's root", nil},
		{"the host's root, mirrored", []string{"--dir", "/nsrun-mirror-test"}},
		{"an image, mirrored", []string{"--root", img}},
		{"an image, overlaid", []string{"--root", img, "--overlay", "/"}},
		{"an image, overlaid and mirrored", []string{"--root", img, "--overlay", "/", "--dir", "/x"}},
		{"an image, its overlay kept", []string{"--root", img, "--overlay", "/", "--keep-changes", kept}},
	} {
		r := run(t, "/", append(append([]string{"--landlock", "off"}, tc.args...), "--", "/bin/sh", "-c", script)...)
		if r.code != 0 {
			t.Errorf("%s: .. does not lead to the view's root: %v", tc.what, r)
			continue
		}
		for i, line := range strings.Split(r.stdout, "\n") {
			f := strings.Fields(line)
			if i > 0 && len(f) > 4 && f[4] == "/" {
				t.Errorf("%s: a second mount at / inside: %s", tc.what, line)
			}
		}
	}
}
