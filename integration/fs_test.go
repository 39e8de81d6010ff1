//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestRootIsReadOnly(t *testing.T) {
	ws := workspace(t)
	outside := workspace(t)
	writeFile(t, filepath.Join(outside, "keep"), "host")
	// The outside directory is visible only if not under the private /tmp.
	for _, tc := range []struct{ op, path, want string }{
		{"write", "/etc/nsrun-probe", "EROFS"},
		{"write", "/usr/nsrun-probe", "EROFS"},
		{"mkdir", "/var/tmp/nsrun-probe-dir", "EROFS"},
		{"write", filepath.Join(ws, "ok"), "ok"},
	} {
		got := helper(t, []string{"--rw", ws}, tc.op, tc.path)
		expect(t, tc.op+" "+tc.path, got, tc.want)
	}
	if _, err := os.Stat("/etc/nsrun-probe"); !os.IsNotExist(err) {
		t.Errorf("/etc/nsrun-probe exists on the host: %v", err)
	}
	expect(t, "workspace file on the host", readFile(t, filepath.Join(ws, "ok")), "x")
	// A host directory bound read-only stays unchanged.
	got := helper(t, []string{"--rw", ws, "--ro", outside}, "write", filepath.Join(outside, "keep"))
	expect(t, "write into --ro", got, "EROFS")
	expect(t, "host file under --ro", readFile(t, filepath.Join(outside, "keep")), "host")
}

func TestReadOnlyInsideWritableHolds(t *testing.T) {
	ws := workspace(t)
	git := filepath.Join(ws, ".git")
	writeFile(t, filepath.Join(git, "config"), "[core]\n")
	writeFile(t, filepath.Join(git, "hooks", "pre-commit"), "#!/bin/sh\n")
	opts := []string{"--rw", ws, "--ro", git}
	for _, tc := range []struct {
		op   string
		args []string
		want string
	}{
		{"write", []string{filepath.Join(git, "config")}, "EROFS"},
		{"write", []string{filepath.Join(git, "hooks", "post-checkout")}, "EROFS"},
		{"remove", []string{filepath.Join(git, "config")}, "EROFS"},
		{"rename", []string{git, filepath.Join(ws, "moved")}, "EBUSY"},
		{"rmdir", []string{git}, "EBUSY"},
		{"rename", []string{filepath.Join(ws, "other"), git}, "ENOENT"},
		{"write", []string{filepath.Join(ws, "file")}, "ok"},
	} {
		got := helper(t, opts, tc.op, tc.args...)
		expect(t, tc.op+" "+strings.Join(tc.args, " "), got, tc.want)
	}
	// Replacing .git with a directory of the payload's own fails too.
	r := run(t, ws, append(opts, "--", "/bin/sh", "-c", "mkdir "+ws+"/fake && mv -T "+ws+"/fake "+git)...)
	if r.code == 0 {
		t.Errorf("replacing .git succeeded: %v", r)
	}
	expect(t, ".git/config on the host", readFile(t, filepath.Join(git, "config")), "[core]\n")
	if _, err := os.Stat(filepath.Join(git, "hooks", "post-checkout")); !os.IsNotExist(err) {
		t.Errorf("hook planted on the host: %v", err)
	}
}

func TestDenyHidesFilesAndDirectories(t *testing.T) {
	ws := workspace(t)
	secretFile := filepath.Join(ws, "token")
	secretDir := filepath.Join(ws, "secrets")
	writeFile(t, secretFile, "s3cret")
	writeFile(t, filepath.Join(secretDir, "key"), "private")
	writeFile(t, filepath.Join(secretDir, "public", "readme"), "hello")
	opts := []string{"--rw", ws, "--deny", secretFile, "--deny", secretDir}
	expect(t, "denied file", helper(t, opts, "read", secretFile), `""`)
	expect(t, "denied dir", helper(t, opts, "ls", secretDir), "")
	expect(t, "write denied file", helper(t, opts, "write", secretFile), "EROFS")
	expect(t, "write in denied dir", helper(t, opts, "write", filepath.Join(secretDir, "x")), "EROFS")
	// A deeper grant under a deny shows just that part.
	opts = append(opts, "--ro", filepath.Join(secretDir, "public"))
	expect(t, "dir under deny", helper(t, opts, "ls", secretDir), "public")
	expect(t, "grant under deny", helper(t, opts, "read", filepath.Join(secretDir, "public", "readme")), `"hello"`)
	expect(t, "host secret", readFile(t, secretFile), "s3cret")
}

func TestTmpIsPrivate(t *testing.T) {
	marker, err := os.CreateTemp("/tmp", "nsrun-host-marker-")
	if err != nil {
		t.Fatal(err)
	}
	marker.Close()
	defer os.Remove(marker.Name())
	expect(t, "host /tmp file inside", helper(t, nil, "read", marker.Name()), "ENOENT")
	expect(t, "write /tmp inside", helper(t, nil, "write", "/tmp/inside-only"), "ok")
	if _, err := os.Stat("/tmp/inside-only"); !os.IsNotExist(err) {
		t.Errorf("a write to the sandbox's /tmp reached the host: %v", err)
	}
	r := run(t, "/", "--env", "TMPDIR=/nonexistent", "--", "/bin/sh", "-c", "echo $TMPDIR")
	expect(t, "TMPDIR outside the writable paths", r.stdout, "/tmp")
}

func TestRunIsPrivate(t *testing.T) {
	ents, err := os.ReadDir("/run")
	if err != nil || len(ents) == 0 {
		t.Skip("the host's /run is empty")
	}
	expect(t, "ls /run", helper(t, nil, "ls", "/run"), "")
}

func TestTmpfsOption(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "cache", "old"), "old")
	opts := []string{"--rw", ws, "--tmpfs", filepath.Join(ws, "cache")}
	expect(t, "tmpfs starts empty", helper(t, opts, "ls", filepath.Join(ws, "cache")), "")
	expect(t, "tmpfs writable", helper(t, opts, "write", filepath.Join(ws, "cache", "new")), "ok")
	if _, err := os.Stat(filepath.Join(ws, "cache", "new")); !os.IsNotExist(err) {
		t.Errorf("a tmpfs write reached the host: %v", err)
	}
}

func TestDevIsMinimal(t *testing.T) {
	got := helper(t, nil, "ls", "/dev")
	expect(t, "ls /dev", got, "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero")
	expect(t, "write /dev/null", helper(t, nil, "write", "/dev/null"), "ok")
	expect(t, "new file in /dev", helper(t, nil, "write", "/dev/sda"), "EROFS")
	expect(t, "mknod", helper(t, nil, "mknod", "/dev/shm/mem"), "EPERM")
	expect(t, "devpts ptmx", helper(t, nil, "ls", "/dev/pts"), "ptmx")
}

func TestProcIsPrivateAndGuarded(t *testing.T) {
	// As the host's root the entries are covered read-only; otherwise
	// their owner (the host's root) is what refuses.
	want := "EACCES"
	if os.Getuid() == 0 {
		want = "EROFS"
	}
	expect(t, "write /proc/sys", helper(t, nil, "write", "/proc/sys/kernel/hostname"), want)
	// Unprivileged, permissions refuse before the read-only mount does.
	if got := helper(t, nil, "append", "/proc/irq/default_smp_affinity"); got != "EROFS" && (os.Getuid() == 0 || got != "EACCES") {
		t.Errorf("write /proc/irq: got %s, want EROFS", got)
	}
	if _, err := os.Stat("/proc/sysrq-trigger"); err == nil {
		got := helper(t, nil, "append", "/proc/sysrq-trigger")
		if got != "EROFS" && got != "EACCES" {
			t.Errorf("write /proc/sysrq-trigger: got %s, want EROFS or EACCES", got)
		}
	}
	r := run(t, "/", "--", "/bin/sh", "-c", "ls -d /proc/[0-9]* | wc -l")
	if r.stdout == "" || len(r.stdout) > 1 {
		t.Errorf("pids visible inside: %v", r)
	}
	// The test process's own pid does not exist inside.
	expect(t, "signal a host pid", helper(t, nil, "kill", itoa(os.Getpid()), "0"), "ESRCH")
}

// The kernel's root-only reports (physical page state, the kernel's heap
// and address layout, firmware tables, power meters) are hidden from a
// sandbox of the host's root, whose reads pass their modes, by both inits;
// another user's sandbox is refused by the modes themselves, and nothing
// covers its /proc or /sys (a nested sandbox needs them fully visible).
func TestRootOnlyKernelReportsHidden(t *testing.T) {
	files := []string{"/proc/kpagecgroup", "/proc/kpagecount", "/proc/kpageflags", "/proc/latency_stats", "/proc/pagetypeinfo",
		"/proc/sched_debug", "/proc/slabinfo", "/proc/timer_list", "/proc/vmallocinfo", "/sys/kernel/vmcoreinfo"}
	dirs := []string{"/sys/devices/virtual/powercap", "/sys/firmware", "/sys/kernel/mm/page_idle", "/sys/kernel/slab"}
	// What this host shows to the test's own user: a container may mask
	// some already, and a kernel may lack some.
	var script strings.Builder
	shown := 0
	if os.Getuid() != 0 {
		files, dirs = nil, nil
	}
	for _, f := range files {
		b := make([]byte, 4096)
		fd, err := os.Open(f)
		if err != nil {
			continue
		}
		n, _ := fd.Read(b)
		fd.Close()
		if n > 0 {
			shown++
		}
		fmt.Fprintf(&script, "echo %s $(head -c 4096 %s 2>/dev/null | wc -c);", f, f)
	}
	for _, d := range dirs {
		if entries, err := os.ReadDir(d); err == nil && len(entries) > 0 {
			shown++
			fmt.Fprintf(&script, "echo %s $(ls -A %s | wc -l);", d, d)
		}
	}
	if os.Getuid() == 0 && shown == 0 {
		t.Skip("this host shows none of the kernel's root-only reports to root")
	}
	script.WriteString(`grep -cE ' /(proc/(kpage|latency_stats|pagetypeinfo|sched_debug|slabinfo|timer_list|vmallocinfo)|sys/(devices/virtual/powercap|firmware|kernel/mm/page_idle|kernel/slab|kernel/vmcoreinfo))' /proc/self/mountinfo || true`)
	for _, init := range []string{"raw", "go"} {
		t.Run(init, func(t *testing.T) {
			rep := filepath.Join(t.TempDir(), "report.json")
			r := runEnv(t, "/", []string{"NSRUN_INIT=" + init}, "--report", rep, "--", "/bin/sh", "-c", script.String())
			if r.code != 0 {
				t.Fatal(r)
			}
			// The report says so, apart from the user's own denials.
			var got struct {
				Filesystem struct{ Deny, Hidden []string }
			}
			if err := json.Unmarshal([]byte(readFile(t, rep)), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Filesystem.Deny) != 0 || (os.Getuid() == 0) != slices.Contains(got.Filesystem.Hidden, "/proc/kpageflags") {
				t.Errorf("reported deny %v, hidden %v", got.Filesystem.Deny, got.Filesystem.Hidden)
			}
			lines := strings.Split(r.stdout, "\n")
			for _, l := range lines[:len(lines)-1] {
				if f := strings.Fields(l); len(f) != 2 || f[1] != "0" {
					t.Errorf("%s: shown inside (bytes or entries)", l)
				}
			}
			// Hidden by a mount each, not by chance.
			covers, _ := strconv.Atoi(lines[len(lines)-1])
			if os.Getuid() == 0 && covers < shown {
				t.Errorf("%d covers for %d reports the host shows", covers, shown)
			}
			if os.Getuid() != 0 && covers != 0 {
				t.Errorf("a sandbox of another user has %d covers in /proc and /sys", covers)
			}
		})
	}
}

// Both ways of setting mount attributes are checked: mount_setattr, and the
// remount of each mount that kernels before 5.12 need.
func TestEveryMountNosuidNodevAndRootReadOnly(t *testing.T) {
	for _, mode := range []string{"mount_setattr", "remount"} {
		t.Run(mode, func(t *testing.T) {
			var env []string
			if mode == "remount" {
				env = []string{"NSRUN_FORCE_REMOUNT=1"}
			}
			ws := workspace(t)
			writeFile(t, filepath.Join(ws, ".git", "config"), "x")
			r := runEnv(t, "/", env, "--rw", ws, "--ro", filepath.Join(ws, ".git"), "--deny", "/etc/hostname", "--",
				"/bin/sh", "-c", "cat /proc/self/mountinfo; echo =; "+helperBin+" write /etc/x; "+helperBin+" write "+ws+"/.git/config; "+helperBin+" write "+ws+"/ok")
			if r.code != 0 {
				t.Fatal(r)
			}
			info, results, _ := strings.Cut(r.stdout, "\n=\n")
			expect(t, "writes", results, "EROFS\nEROFS\nok")
			checkMountinfo(t, info, ws)
		})
	}
}

func checkMountinfo(t *testing.T, info, ws string) {
	type entry struct{ id, parent, mp, opts string }
	var all []entry
	for _, line := range strings.Split(info, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 {
			all = append(all, entry{f[0], f[1], f[4], f[5]})
		}
	}
	covered, shims := map[string]bool{}, hostShims()
	for _, e := range all {
		for _, p := range all {
			if p.id == e.parent && p.mp == e.mp {
				covered[p.id] = true
			}
		}
	}
	for _, e := range all {
		if covered[e.id] {
			continue // mounted over: nothing inside can reach it
		}
		mp, opts := e.mp, e.opts
		if !strings.Contains(opts, "nosuid") {
			t.Errorf("%s lacks nosuid: %s", mp, opts)
		}
		dev := mp == "/dev" || strings.HasPrefix(mp, "/dev/")
		if !dev && !strings.Contains(opts, "nodev") {
			t.Errorf("%s lacks nodev: %s", mp, opts)
		}
		procRO := mp == "/proc/sys" || mp == "/proc/sysrq-trigger" || mp == "/proc/irq" || mp == "/proc/bus"
		writable := mp == ws || mp == "/tmp" || mp == "/run" || mp == "/var/run" || mp == "/dev/shm" || mp == "/dev/pts" ||
			dev && mp != "/dev" || mp == "/proc" || strings.HasPrefix(mp, "/proc/") && !procRO || shims[mp]
		if !writable && !strings.HasPrefix(opts, "ro") {
			t.Errorf("%s is not read-only: %s", mp, opts)
		}
	}
}

func TestSymlinkMountPointRefused(t *testing.T) {
	root := workspace(t)
	for _, d := range []string{"bin", "etc", "dev", "proc", "run"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// /tmp inside the new root is a symlink to a host directory: nsrun
	// must refuse to mount through it.
	if err := os.Symlink("/var", filepath.Join(root, "tmp")); err != nil {
		t.Fatal(err)
	}
	r := run(t, "/", "--root", root, "--", "/helper")
	if r.code != 125 || !strings.Contains(r.stderr, "symlink") {
		t.Errorf("want exit 125 naming the symlink, got %v", r)
	}
}
