//go:build linux

package integration

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// kfsBase makes a directory under /var/tmp that the test user can read,
// with the host's kernel mounts the red-team tests try to reach through:
// a chroot's procfs and sysfs; a procfs at a name mountinfo escapes
// (space, newline, backslash); a bind of a procfs directory (/proc/1); a
// procfs under a tmpfs and a tmpfs under a procfs at one mount point; a
// procfs reached through a symlink; a bound namespace file. All are
// unmounted when the test ends.
func kfsBase(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "nsrun-kfsred-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"chroot/proc", "chroot/sys", "a b\nc\\d/proc", "p1", "stack", "stack2", "real/proc"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(base, "netns"), "")
	mount := func(src, at, fstype string, flags uintptr) {
		t.Helper()
		at = filepath.Join(base, at)
		if err := unix.Mount(src, at, fstype, flags, ""); err != nil {
			if errors.Is(err, unix.EPERM) {
				t.Skipf("mount %s on %s: %v (a container that does not allow it)", fstype, at, err)
			}
			t.Fatalf("mount %s on %s: %v", fstype, at, err)
		}
		// Cleanups run last first: an upper mount goes before the one
		// under it.
		t.Cleanup(func() { unix.Unmount(at, unix.MNT_DETACH) })
	}
	mount("proc", "chroot/proc", "proc", 0)
	mount("sysfs", "chroot/sys", "sysfs", 0)
	mount("proc", "a b\nc\\d/proc", "proc", 0)
	mount("/proc/1", "p1", "", unix.MS_BIND)
	mount("proc", "stack", "proc", 0)
	mount("tmpfs", "stack", "tmpfs", 0)
	mount("tmpfs", "stack2", "tmpfs", 0)
	mount("proc", "stack2", "proc", 0)
	mount("proc", "real/proc", "proc", 0)
	mount("/proc/self/ns/net", "netns", "", unix.MS_BIND)
	return base
}

// kfsProbe is a shell script that prints, for each kernel mount of
// kfsBase under dir, the number of entries the payload sees there (the
// namespace file's size), all on one line.
func kfsProbe(dir string) string {
	var s strings.Builder
	for _, p := range []string{"chroot/proc", "chroot/sys", "a b\nc\\d/proc", "p1", "stack", "stack2", "link/proc", "real/proc"} {
		s.WriteString("printf '%s ' $(ls -A '" + filepath.Join(dir, p) + "' 2>/dev/null | wc -l);")
	}
	s.WriteString("stat -c %s " + filepath.Join(dir, "netns"))
	return s.String()
}

// Every way of showing a host tree, for root and for another user, hides
// the host's kernel mounts in it, whatever their mount points' names,
// however they are stacked, and through a symlink; a bind of a procfs
// directory too.
func TestRedteamKernelMountsOddPlaces(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting on the host needs root")
	}
	need(t)
	base := kfsBase(t)
	// What the host itself shows there: the test is void where it shows
	// nothing.
	host, err := exec.Command("/bin/sh", "-c", kfsProbe(base)).Output()
	if err != nil || strings.Count(string(host), " 0") > 2 {
		t.Fatalf("the host shows %q (%v): want its processes in the procfs mounts", host, err)
	}
	for _, cred := range rootAndTestUser() {
		for _, tc := range []struct {
			name string
			args []string
			at   string
		}{
			{"root", nil, base},
			{"rw", []string{"--rw", base}, base},
			{"ro", []string{"--ro", base}, base},
			{"bind", []string{"--bind", base, "/mnt"}, "/mnt"},
			{"ro-bind", []string{"--ro-bind", base, "/mnt"}, "/mnt"},
			{"rw through a symlink", []string{"--rw", filepath.Join(base, "link")}, base},
			{"a tmpfs over a stack", []string{"--rw", base, "--tmpfs", filepath.Join(base, "stack")}, base},
			{"bwrap", []string{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", base, base}, base},
		} {
			who := "root"
			if cred != nil {
				who = "nsrun-test"
			}
			t.Run(who+"/"+tc.name, func(t *testing.T) {
				args := append(append([]string{}, tc.args...), "--", "/bin/sh", "-c", kfsProbe(tc.at))
				cmd := exec.Command(nsrunBin, args...)
				cmd.Dir = "/"
				cmd.Env = append(os.Environ(), "HOME=/nonexistent")
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("nsrun %q: %v %s%s", args, err, out, stderr.String())
				}
				if got := strings.Fields(string(out)); strings.Join(got, " ") != "0 0 0 0 0 0 0 0 0" {
					t.Errorf("entries of each kernel mount, the netns file's size: %v, want all 0", got)
				}
			})
		}
	}
}

// A payload of the host's root with --allow-userns (and Landlock off)
// can mount a procfs or sysfs of its own, in namespaces it makes, wherever
// the kernel finds one fully visible in its mount namespace: one with
// nothing mounted on it, even where a later mount hides it from every
// path. A tree nsrun clones carries such copies (a chroot's procfs under
// a bind of its parent, the host's own /proc and /sys under the view
// stacked on a bind of /), and the fresh procfs gets the copy's flags: a
// writable one's /proc/sys is the host's (core_pattern: the host's root),
// and either shows the root-only reports nsrun hides. nsrun puts a mount
// on every copy, so that none is.
func TestRedteamNestedKernelFSThroughHiddenCopies(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the payload's reads and writes pass root's modes only for the host's root")
	}
	need(t)
	base := kfsBase(t)
	nested := func(t *testing.T, init string, args ...string) result {
		t.Helper()
		script := syscBin + " nested-mount proc rw kpageflags sys/kernel/printk_ratelimit; " +
			syscBin + " nested-mount proc ro kpageflags; " + syscBin + " nested-mount sysfs ro"
		return runEnv(t, "/", []string{"NSRUN_INIT=" + init}, append(append([]string{"--allow-userns", "--landlock", "off"}, args...), "--", "/bin/sh", "-c", script)...)
	}
	// A procfs a rule names by its source is shown as asked, and the
	// kernel lets a read-only one mount from it: the probe works here.
	r := nested(t, "raw", "--ro-bind", "/proc", "/mnt")
	if r.code != 0 {
		t.Fatal(r)
	}
	if lines := strings.Split(r.stdout, "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "mounted kpageflags:") {
		t.Skipf("a procfs does not mount from a user namespace of the payload's here, even from a fully visible one: %v", r)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"root", nil},
		{"rw", []string{"--rw", base}},
		{"ro", []string{"--ro", base}},
		{"bind", []string{"--bind", base, "/mnt"}},
		{"bind of /", []string{"--bind", "/", "/mnt"}},
		{"ro-bind of /", []string{"--ro-bind", "/", "/mnt"}},
		{"rw root", []string{"--rw", "/"}},
		{"deny", []string{"--deny", filepath.Join(base, "chroot")}},
		{"tmpfs", []string{"--tmpfs", filepath.Join(base, "chroot")}},
		{"rw and ro below", []string{"--rw", base, "--ro", filepath.Join(base, "chroot")}},
	} {
		for _, init := range []string{"raw", "go"} {
			t.Run(tc.name+"/"+init, func(t *testing.T) {
				r := nested(t, init, tc.args...)
				if r.code != 0 {
					t.Fatal(r)
				}
				if r.stdout != "EPERM\nEPERM\nEPERM" {
					t.Errorf("a procfs rw, one ro, a sysfs ro mounted from a user namespace of the payload's: %q, want EPERM each", r.stdout)
				}
			})
		}
	}
}

// The covers cannot be taken off: in a user and mount namespace of the
// payload's own (--allow-userns, Landlock off) every mount it inherited is
// locked to it, a cover and the mounts above it alike, and the hidden
// report and the chroot's procfs stay hidden.
func TestRedteamNestedUmountCovers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting on the host needs root")
	}
	need(t)
	base := kfsBase(t)
	chroot := filepath.Join(base, "chroot")
	script := syscBin + " nested-umount " + chroot + "/proc/1/cmdline " + chroot + "/proc " + chroot + " " + base
	r := run(t, "/", "--allow-userns", "--landlock", "off", "--rw", base, "--", "/bin/sh", "-c",
		syscBin+" nested-umount /proc/kpageflags /proc/kpageflags /proc; "+script)
	if r.code != 0 {
		t.Fatal(r)
	}
	want := "/proc/kpageflags:EINVAL /proc:EINVAL /proc/kpageflags:0\n" +
		chroot + "/proc:EINVAL " + chroot + ":EINVAL " + base + ":EINVAL " + chroot + "/proc/1/cmdline:ENOENT"
	if r.stdout != want {
		t.Errorf("umount2 of the covers and what is under them:\n%s\nwant\n%s", r.stdout, want)
	}
	u, err := user.Lookup("nsrun-test")
	if err != nil {
		return
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd := exec.Command(nsrunBin, "--allow-userns", "--landlock", "off", "--rw", base, "--", "/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "HOME=/nonexistent")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nsrun-test: %v %s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), strings.SplitN(want, "\n", 2)[1]; got != want {
		t.Errorf("nsrun-test: umount2 of the covers and what is under them:\n%s\nwant\n%s", got, want)
	}
}

// A procfs the host itself hides under a later mount over a directory
// above it has no path: nsrun cannot cover the copies a tree carries, and
// the kernel would let the payload mount a procfs through one. A sandbox
// of the host's root that may make namespaces is refused; without
// --allow-userns it runs (the payload can make none).
func TestRedteamProcfsHiddenOnTheHost(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting on the host needs root")
	}
	need(t)
	base := kfsBase(t)
	a := filepath.Join(base, "a")
	if err := os.MkdirAll(filepath.Join(a, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("proc", filepath.Join(a, "proc"), "proc", 0, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(filepath.Join(a, "proc"), unix.MNT_DETACH) })
	if err := unix.Mount("tmpfs", a, "tmpfs", 0, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(a, unix.MNT_DETACH) })
	r := run(t, "/", "--allow-userns", "--landlock", "off", "--rw", base, "--", syscBin, "nested-mount", "proc", "rw", "sys/kernel/printk_ratelimit")
	if r.code != 125 || !strings.Contains(r.stderr, filepath.Join(a, "proc")+" under a later mount") {
		t.Errorf("a procfs hidden on the host, with --allow-userns: %v, want exit 125 naming it", r)
	}
	r = run(t, "/", "--rw", base, "--", "/bin/true")
	if r.code != 0 {
		t.Errorf("without --allow-userns: %v", r)
	}
}

// The hidden reports stay hidden by the other paths to them: the roots of
// the sandbox's processes lead to the same covers, and /sys/kernel/slab,
// slabinfo's counts per cache, is covered too.
func TestRedteamRootOnlyReportsOtherPaths(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only the host's root passes the reports' modes")
	}
	need(t)
	if _, err := os.Stat("/proc/kpageflags"); err != nil {
		t.Skip("no /proc/kpageflags here")
	}
	script := `for f in /proc/1/root/proc/kpageflags /proc/self/root/proc/kpageflags /proc/thread-self/root/proc/slabinfo /proc/self/root/sys/kernel/vmcoreinfo; do
	printf '%s ' $(head -c 4096 $f 2>/dev/null | wc -c); done
for d in /proc/self/root/sys/kernel/slab /sys/kernel/slab /proc/self/root/sys/firmware; do printf '%s ' $(ls -A $d 2>/dev/null | wc -l); done`
	r := run(t, "/", "--", "/bin/sh", "-c", script)
	if r.code != 0 || r.stdout != "0 0 0 0 0 0 0" {
		t.Errorf("bytes of the reports, entries of the directories, by other paths: %v, want all 0", r)
	}
}
