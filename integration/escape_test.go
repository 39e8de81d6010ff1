//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The escape attempts of REFERENCE.md that the other tests do not cover
// already, each with its exact outcome, with the default network and with
// --net host. (Covered elsewhere: mount and the mount API, unshare, keyrings,
// TIOCSTI, socket families, io_uring, bpf, userfaultfd, perf, x32 and
// int 0x80 in seccomp_test.go; /dev, /proc and the root in fs_test.go;
// unix sockets in net_test.go and landlock_test.go; descriptors, pids and
// capabilities in process_test.go.)
func TestEscapeAttempts(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "file"), "ws")
	ro := workspace(t)
	writeFile(t, filepath.Join(ro, "mine"), "mine")
	for name, target := range map[string]string{"to-etc": "/etc", "to-parent": "..", "to-root": "/proc/self/root"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	self := itoa(os.Getpid())
	for _, net := range []string{"none", "host"} {
		opts := []string{"--net", net, "--rw", ws, "--ro", ro}
		for _, tc := range []struct {
			name string
			op   []string
			want []string
		}{
			{"signal a host process", []string{"kill", self, "15"}, []string{"ESRCH"}},
			{"pidfd of a host process", []string{"pidfd", self}, []string{"ESRCH"}},
			{"reopen a read-only file read-write", []string{"reopen-rw", filepath.Join(ro, "mine")}, []string{"EROFS"}},
			{"write through a link to /etc", []string{"write", filepath.Join(ws, "to-etc", "nsrun-escape")}, []string{"EROFS"}},
			{"write through a link to ..", []string{"write", filepath.Join(ws, "to-parent", filepath.Base(ws)+"-escape")}, []string{"ok", "EROFS"}},
			{"write through /proc/self/root", []string{"write", filepath.Join(ws, "to-root", "etc", "nsrun-escape")}, []string{"EROFS"}},
			{"hard link a host file into the workspace", []string{"link", "/etc/hostname", filepath.Join(ws, "stolen")}, []string{"EXDEV"}},
			{"overwrite the init's binary", []string{"append", "/proc/1/exe"}, []string{"EACCES", "ETXTBSY", "EROFS"}},
			{"overwrite nsrun on the host", []string{"append", nsrunBin}, []string{"EROFS", "EACCES", "ETXTBSY"}},
			{"write core_pattern", []string{"append", "/proc/sys/kernel/core_pattern"}, []string{"EROFS", "EACCES"}},
			{"a new user namespace (cgroup release_agent trick)", []string{"unshare-user"}, []string{"EPERM"}},
		} {
			got := helper(t, opts, tc.op[0], tc.op[1:]...)
			ok := false
			for _, w := range tc.want {
				ok = ok || got == w
			}
			if !ok {
				t.Errorf("--net %s, %s: %s, want one of %v", net, tc.name, got, tc.want)
			}
		}
		r := run(t, ws, append(opts, "--", "/usr/bin/setarch", "x86_64", "-R", "/bin/true")...)
		if r.code == 0 {
			t.Errorf("--net %s: setarch -R worked: %v", net, r)
		}
	}
	expect(t, "network with --net none", helper(t, nil, "connect-unroutable"), "ENETUNREACH")
	for _, p := range []string{"/etc/nsrun-escape", filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-escape")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was created on the host", p)
		}
	}
	expect(t, "workspace file", readFile(t, filepath.Join(ws, "file")), "ws")
}

// A setuid program gains nothing: the payload stays who it was.
func TestSetuidGivesNothing(t *testing.T) {
	need(t)
	fi, err := os.Stat("/usr/bin/passwd")
	if os.Getuid() == 0 || err != nil || fi.Mode()&os.ModeSetuid == 0 {
		t.Skip("needs an unprivileged user and a setuid /usr/bin/passwd")
	}
	// Outside, passwd reads /etc/shadow as root and shows the whole status
	// (last change, ages); without its privilege it can only guess.
	out, err := exec.Command("/usr/bin/passwd", "-S").Output()
	if err != nil || len(strings.Fields(string(out))) < 4 {
		t.Skipf("passwd -S does not show a full status here outside the sandbox: %v %s", err, out)
	}
	r := run(t, "/", "--", "/usr/bin/passwd", "-S")
	if r.stdout == strings.TrimSpace(string(out)) {
		t.Errorf("setuid passwd read /etc/shadow inside: %v", r)
	}
}
