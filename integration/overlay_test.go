//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// keptDir is a directory for --keep-changes that does not exist yet, on a
// filesystem that can hold an overlay's upper layer: /dev/shm, a tmpfs
// also in a container, whose own filesystem (overlayfs) cannot.
func keptDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "nsrun-kept-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "kept")
}

// settle waits past the margin nsrun changes keeps for the kernel's
// coarse clock: files made just before a run read as changed during it.
func settle() { time.Sleep(50 * time.Millisecond) }

// overlayWork is a workspace a test's payload changes through an overlay.
func overlayWork(t *testing.T) string {
	t.Helper()
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "a"), "a\n")
	writeFile(t, filepath.Join(ws, "same"), "same\n")
	writeFile(t, filepath.Join(ws, "d", "b"), "b\n")
	writeFile(t, filepath.Join(ws, "gone", "g"), "g\n")
	writeFile(t, filepath.Join(ws, "suid"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(ws, "suid"), 0o4755); err != nil {
		t.Fatal(err)
	}
	settle()
	return ws
}

// What the payload does to an overlaid workspace.
const overlayScript = `cd "$0" && echo a2 >> a && echo new > new && rm -r gone && mkdir nd && echo x > nd/x &&
echo same > same && chmod 700 d && rm d/b && ln -s /etc/shadow link && echo run >> suid && mkfifo pipe && rm pipe && ls`

// --overlay: the payload writes, removes and renames freely; the host
// directory never changes.
func TestOverlayLeavesTheHostUnchanged(t *testing.T) {
	ws := overlayWork(t)
	before := treeSum(t, ws)
	rep := filepath.Join(workspace(t), "r.json")
	r := run(t, "/", "--overlay", ws, "--report", rep, "--", "/bin/sh", "-c", overlayScript+" && cat a && mv nd nd2 && ls nd2", ws)
	expect(t, "inside", r.stdout, "a\nd\nlink\nnd\nnew\nsame\nsuid\na\na2\nx")
	if got := treeSum(t, ws); got != before {
		t.Errorf("the host directory changed:\n%s\nwas\n%s", got, before)
	}
	var got struct{ Filesystem struct{ Overlay []string } }
	decodeReport(t, rep, &got)
	shims := hostShims()
	if strings.Join(slices.DeleteFunc(got.Filesystem.Overlay, func(p string) bool { return shims[p] }), " ") != ws {
		t.Errorf("report overlay: %v", got.Filesystem.Overlay)
	}
	// A throwaway writable root of an image.
	img := tinyImage(t)
	imgBefore := treeSum(t, img)
	r = run(t, "/", "--root", img, "--overlay", "/", "--", "/bin/sh", "-c", "echo x > /etc/new && mkdir /opt && cat /etc/new && rm /helper && ls /helper")
	if r.code == 0 || !strings.HasPrefix(r.stdout, "x") {
		t.Errorf("--root --overlay /: %v", r)
	}
	if got := treeSum(t, img); got != imgBefore {
		t.Errorf("the image changed")
	}
	// Kept: the mount points nsrun makes in the layer (/dev, /proc, /sys,
	// /tmp, the passwd files the image lacks) are not the payload's.
	kept := keptDir(t)
	r = run(t, "/", "--root", img, "--overlay", "/", "--keep-changes", kept, "--", "/bin/sh", "-c", "echo x > /etc/new && echo y > /new")
	if r.code != 0 {
		t.Fatal(r)
	}
	r = run(t, "/", "changes", kept)
	expect(t, "the image's kept changes", r.stdout, "A  "+img+"/etc/new\nA  "+img+"/new")
	for _, tc := range []struct {
		what string
		args []string
		want []string
	}{
		{"an overlay of a file", []string{"--overlay", filepath.Join(ws, "a")}, []string{"--overlay " + filepath.Join(ws, "a"), "not a directory"}},
		{"the host's root", []string{"--overlay", "/"}, []string{"--overlay /", "mounted below it", "--root DIR --overlay /"}},
		{"keep without an overlay", []string{"--keep-changes", filepath.Join(ws, "k")}, []string{"--keep-changes", "no --overlay"}},
	} {
		failsWith(t, tc.what, run(t, "/", append(tc.args, "--", "/bin/true")...), tc.want...)
	}
}

// --keep-changes keeps the overlay's upper layer; nsrun changes lists what
// the payload did, nsrun changes apply does exactly that to the host, once.
func TestKeepChangesAndApply(t *testing.T) {
	ws := overlayWork(t)
	before := treeSum(t, ws)
	kept := keptDir(t)
	rep := filepath.Join(workspace(t), "r.json")
	r := run(t, "/", "--overlay", ws, "--keep-changes", kept, "--report", rep, "--", "/bin/sh", "-c", overlayScript, ws)
	if r.code != 0 {
		t.Fatal(r)
	}
	if got := treeSum(t, ws); got != before {
		t.Errorf("the host directory changed before apply")
	}
	var got struct{ Filesystem struct{ Changes string } }
	decodeReport(t, rep, &got)
	expect(t, "report changes", got.Filesystem.Changes, kept)
	want := strings.Join([]string{
		"M  " + ws + "/a",
		"M  " + ws + "/d/",
		"D  " + ws + "/d/b",
		"D  " + ws + "/gone/",
		"A  " + ws + "/link",
		"A  " + ws + "/nd/",
		"A  " + ws + "/nd/x",
		"A  " + ws + "/new",
		"M  " + ws + "/suid",
	}, "\n")
	r = run(t, "/", "changes", kept)
	expect(t, "nsrun changes", r.stdout, want)
	r = run(t, "/", "changes", "apply", kept)
	expect(t, "nsrun changes apply", r.stdout, want)
	for p, content := range map[string]string{"a": "a\na2\n", "new": "new\n", "nd/x": "x\n", "same": "same\n", "suid": "#!/bin/sh\nrun\n"} {
		expect(t, p+" on the host", readFile(t, filepath.Join(ws, p)), content)
	}
	for _, p := range []string{"gone", "d/b"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); !os.IsNotExist(err) {
			t.Errorf("%s is still on the host: %v", p, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(ws, "link")); err != nil || target != "/etc/shadow" {
		t.Errorf("the payload's symlink, applied as a symlink: %q %v", target, err)
	}
	if fi, err := os.Stat(filepath.Join(ws, "d")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("d's mode: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Join(ws, "suid")); err != nil || fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		t.Errorf("a set-uid file from the sandbox on the host: %v %v", fi.Mode(), err)
	}
	r = run(t, "/", "changes", "apply", kept)
	if r.code != 1 || !strings.Contains(r.stderr, "applied already") {
		t.Errorf("applied twice: %v", r)
	}
	r = run(t, "/", "changes", filepath.Join(ws, "nope"))
	failsWith(t, "not a kept directory", r, "changes", "no kept changes")
}

// A host file changed since the run began, or a symlink planted on the
// way since, makes apply refuse everything.
func TestApplyRefusesWhatTheHostChanged(t *testing.T) {
	for _, tc := range []struct {
		what   string
		change func(ws string)
		why    string
	}{
		{"a file changed on the host", func(ws string) { writeFile(t, filepath.Join(ws, "a"), "host's\n") }, "changed on the host since the run began"},
		{"a file made on the host where the payload made one", func(ws string) { writeFile(t, filepath.Join(ws, "new"), "host's\n") }, "changed on the host"},
		{"a file deleted on the host", func(ws string) { os.Remove(filepath.Join(ws, "a")) }, "deleted on the host"},
		{"a file added in a directory the payload deleted", func(ws string) { writeFile(t, filepath.Join(ws, "gone", "h"), "h") }, "gone: changed on the host"},
		{"a directory replaced by a symlink", func(ws string) {
			os.RemoveAll(filepath.Join(ws, "d"))
			os.Symlink("/etc", filepath.Join(ws, "d"))
		}, "a symlink is in the way"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			ws := overlayWork(t)
			kept := keptDir(t)
			r := run(t, "/", "--overlay", ws, "--keep-changes", kept, "--", "/bin/sh", "-c", overlayScript, ws)
			if r.code != 0 {
				t.Fatal(r)
			}
			tc.change(ws)
			before := treeSum(t, ws)
			r = run(t, "/", "changes", "apply", kept)
			if r.code != 1 || !strings.Contains(r.stderr, tc.why) || !strings.Contains(r.stderr, "nothing applied") {
				t.Errorf("apply: %v", r)
			}
			if got := treeSum(t, ws); got != before {
				t.Errorf("apply changed the host:\n%s\nwas\n%s", got, before)
			}
			if _, err := os.Lstat("/etc/b"); err == nil && tc.why == "a symlink is in the way" {
				t.Error("apply followed the planted symlink")
			}
			r = run(t, "/", "changes", kept)
			if r.code != 0 || !strings.Contains(r.stdout, "! ") {
				t.Errorf("nsrun changes does not mark the conflict: %v", r)
			}
		})
	}
}

// The kept directory must be out of the sandbox's reach, and is taken up
// again only for the same overlays.
func TestKeepChangesDirectory(t *testing.T) {
	ws := overlayWork(t)
	other := workspace(t)
	kept := keptDir(t)
	failsWith(t, "inside a writable rule", run(t, "/", "--overlay", ws, "--rw", other, "--keep-changes", filepath.Join(other, "k"), "--", "/bin/true"),
		"--keep-changes", "which the sandbox may write")
	failsWith(t, "inside the overlay", run(t, "/", "--overlay", ws, "--keep-changes", filepath.Join(ws, "k"), "--", "/bin/true"),
		"--keep-changes", "overlaps --overlay")
	if _, err := os.Lstat(filepath.Join(ws, "k")); !os.IsNotExist(err) {
		t.Errorf("a refused --keep-changes made its directory: %v", err)
	}
	r := run(t, "/", "--overlay", ws, "--keep-changes", kept, "--", "/bin/sh", "-c", "echo 1 > "+ws+"/run1")
	if r.code != 0 {
		t.Fatal(r)
	}
	// The next run goes on from the kept changes; while it runs, no other
	// run takes the same layers, and nothing is applied.
	running := startReady(t, "--overlay", ws, "--keep-changes", kept, "--", "/bin/sh", "-c", "echo ready; cat "+ws+"/run1; exec sleep 60")
	line, _ := running.Out.ReadString('\n')
	expect(t, "the second run sees the first's changes", line, "1\n")
	failsWith(t, "two runs on one kept directory", run(t, "/", "--overlay", ws, "--keep-changes", kept, "--", "/bin/true"),
		"--keep-changes", "in use by another run")
	if r := run(t, "/", "changes", "apply", kept); r.code != 1 || !strings.Contains(r.stderr, "in use by a run") {
		t.Errorf("apply while a run uses it: %v", r)
	}
	running.Process.Kill()
	running.Wait()
	if _, err := os.Stat(filepath.Join(ws, "run1")); !os.IsNotExist(err) {
		t.Errorf("applied while in use: %v", err)
	}
	failsWith(t, "other overlays", run(t, "/", "--overlay", other, "--keep-changes", kept, "--", "/bin/true"),
		"--keep-changes", "other overlays")
	notEmpty := keptDir(t)
	writeFile(t, filepath.Join(notEmpty, "x"), "x")
	failsWith(t, "a directory of something else", run(t, "/", "--overlay", ws, "--keep-changes", notEmpty, "--", "/bin/true"),
		"--keep-changes", "not empty")
}
