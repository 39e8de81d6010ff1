//go:build linux

package integration

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A host procfs, sysfs or namespace file mounted in a tree the sandbox
// shows (a chroot's /proc, say) would list the host's processes, devices
// and network: nsrun covers each, whichever rule shows the tree and for
// every user, and the report lists them as hidden.
func TestHostKernelMountsHidden(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a procfs on the host needs root")
	}
	need(t)
	base, err := os.MkdirTemp("/var/tmp", "nsrun-kfs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	chroot := filepath.Join(base, "chroot")
	for _, d := range []string{"proc", "sys", "etc"} {
		if err := os.MkdirAll(filepath.Join(chroot, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nsFile := filepath.Join(base, "netns")
	writeFile(t, nsFile, "")
	mount := func(src, at, fstype string, flags uintptr) {
		if err := unix.Mount(src, at, fstype, flags, ""); err != nil {
			if errors.Is(err, unix.EPERM) {
				t.Skipf("mount %s on %s: %v (a container that does not allow it)", fstype, at, err)
			}
			t.Fatalf("mount %s on %s: %v", fstype, at, err)
		}
		t.Cleanup(func() { unix.Unmount(at, unix.MNT_DETACH) })
	}
	mount("proc", filepath.Join(chroot, "proc"), "proc", 0)
	mount("sysfs", filepath.Join(chroot, "sys"), "sysfs", 0)
	mount("/proc/self/ns/net", nsFile, "", unix.MS_BIND)
	// Each probe prints what the payload sees there: the number of
	// entries, or the file's size.
	probe := func(at string) string {
		return "ls " + at + "/chroot/proc | wc -l; ls " + at + "/chroot/sys | wc -l; stat -c %s " + at + "/netns; ls " + at + "/chroot/etc | wc -l"
	}
	for _, cred := range rootAndTestUser() {
		for _, tc := range []struct {
			name string
			args []string
			at   string
		}{
			{"the root", nil, base},
			{"a writable bind", []string{"--rw", base}, base},
			{"a read-only bind", []string{"--ro", base}, base},
			{"a bind elsewhere", []string{"--bind", base, "/mnt"}, "/mnt"},
		} {
			who := "root"
			if cred != nil {
				who = "nsrun-test"
			}
			t.Run(who+"/"+tc.name, func(t *testing.T) {
				// Where the user, too, may write it.
				reports, err := os.MkdirTemp(base, "report-")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(reports, 0o777); err != nil {
					t.Fatal(err)
				}
				rep := filepath.Join(reports, "report.json")
				args := append(append([]string{"--report", rep}, tc.args...), "--", "/bin/sh", "-c", probe(tc.at))
				cmd := exec.Command(nsrunBin, args...)
				cmd.Dir = "/"
				cmd.Env = append(os.Environ(), "HOME=/nonexistent")
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("nsrun %v: %v %s%s", args, err, out, stderr.String())
				}
				if got := strings.Fields(string(out)); !slices.Equal(got, []string{"0", "0", "0", "0"}) {
					t.Errorf("entries of proc, sys, the netns file's size, etc: %v, want all 0 (nothing of the host's kernel state)", got)
				}
				var r struct {
					Filesystem struct{ Hidden, Deny []string }
				}
				if err := json.Unmarshal([]byte(readFile(t, rep)), &r); err != nil {
					t.Fatal(err)
				}
				for _, p := range []string{tc.at + "/chroot/proc", tc.at + "/chroot/sys", tc.at + "/netns"} {
					if !slices.Contains(r.Filesystem.Hidden, p) {
						t.Errorf("report: %s not among hidden %v", p, r.Filesystem.Hidden)
					}
				}
				if len(r.Filesystem.Deny) != 0 {
					t.Errorf("report: deny %v, the user denied nothing", r.Filesystem.Deny)
				}
			})
		}
	}
	// Named by a rule of its own, it is shown: the user asked for it.
	r := run(t, "/", "--ro", filepath.Join(chroot, "proc"), "--", "/bin/sh", "-c", "ls "+chroot+"/proc | grep -c '^[0-9]'")
	if n, _ := strconv.Atoi(r.stdout); r.code != 0 || n == 0 {
		t.Errorf("a procfs named by --ro is not shown: %v", r)
	}
}

// A writable rule that shows a procfs or sysfs would let a payload of the
// host's root write the host's kernel settings (/proc/sys/kernel/
// core_pattern is a root shell on the host): refused by name, exit 125.
// Read-only it runs; another user's payload is refused by the files' modes.
func TestWritableKernelSettingsRefusedForRoot(t *testing.T) {
	for _, args := range [][]string{{"--bind", "/proc", "/mnt"}, {"--bind", "/proc/sys", "/mnt"}, {"--bind", "/sys/kernel", "/mnt"}} {
		r := run(t, "/", append(args, "--", "/bin/sh", "-c", "echo ran; cat /mnt/kernel/printk_ratelimit >/dev/null 2>&1; (echo x > /mnt/kernel/printk_ratelimit) 2>/dev/null && echo written; true")...)
		if os.Getuid() == 0 {
			if r.code != 125 || !strings.Contains(r.stderr, strings.Join(args[:3], " ")) || !strings.Contains(r.stderr, "kernel settings") || strings.Contains(r.stdout, "ran") {
				t.Errorf("%v as the host's root: want exit 125 naming the rule, got %v", args, r)
			}
			continue
		}
		if r.code != 0 || r.stdout != "ran" {
			t.Errorf("%v as a user: want it run, with nothing written: %v", args, r)
		}
	}
	r := run(t, "/", "--ro-bind", "/proc", "/mnt", "--", "/bin/sh", "-c", "test -r /mnt/cpuinfo && echo ran")
	if r.code != 0 || r.stdout != "ran" {
		t.Errorf("--ro-bind /proc /mnt: %v", r)
	}
}

// rootAndTestUser are the credentials a root test runs nsrun with to try
// both kinds of caller: its own (nil), and the unprivileged test user's
// where scripts/setup.sh made one.
func rootAndTestUser() []*syscall.Credential {
	users := []*syscall.Credential{nil}
	if u, err := user.Lookup("nsrun-test"); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		users = append(users, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)})
	}
	return users
}
