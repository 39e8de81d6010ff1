//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	// A host process to aim at: not the test itself, which may be pid 1
	// or 2 of a container, numbers the sandbox's own processes have too.
	victim := hostVictim(t)
	self := itoa(victim.Process.Pid)
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
		if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("--net %s: the host process the sandbox aimed at is gone: %v", net, err)
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

// A workspace named through a symlinked parent is bound as its canonical
// path (the link, in the sandbox's private /tmp, recreated so the named
// path works too), and a --ro path named through a link in the writable
// tree stays read-only: the mount is on what the link pointed at when
// nsrun checked it, and the link itself is pinned.
func TestGrantsThroughSymlinksBindTheirTargets(t *testing.T) {
	base := workspace(t)
	real := filepath.Join(base, "real")
	writeFile(t, filepath.Join(real, "ws", "sub", "keep"), "keep")
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(real, "ws", "inner")); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(base, "link", "ws")
	rep := filepath.Join(t.TempDir(), "r.json")
	script := `cd "$1"
echo new >new && echo wrote-new
echo x >inner/x 2>/dev/null || echo inner-refused
{ rm inner 2>/dev/null && ln -s / inner && echo relinked; } || echo pinned
echo y >sub/y 2>/dev/null || echo sub-refused
echo z >inner/nsrun-escape 2>/dev/null || echo root-refused`
	// base is under the private /tmp: nsrun recreates base/link there.
	r := run(t, "/", "--rw", named, "--ro", filepath.Join(named, "inner"), "--report", rep, "--", "/bin/sh", "-c", script, "sh", named)
	// The link to the read-only rule lies in the writable tree: it is
	// pinned, so the host's path still leads to the protected tree.
	want := "wrote-new\ninner-refused\npinned\nsub-refused\nroot-refused"
	if r.code != 0 || r.stdout != want {
		t.Errorf("got %v, want:\n%s", r, want)
	}
	report := readFile(t, rep)
	for _, p := range []string{filepath.Join(real, "ws"), filepath.Join(real, "ws", "sub")} {
		if !strings.Contains(report, `"`+p+`"`) {
			t.Errorf("the report does not name the canonical path %s:\n%s", p, report)
		}
	}
	expect(t, "file written through the link", readFile(t, filepath.Join(real, "ws", "new")), "new\n")
	for _, p := range []string{filepath.Join(real, "ws", "sub", "x"), filepath.Join(real, "ws", "sub", "y"), "/nsrun-escape"} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s was created on the host", p)
		}
	}
	expect(t, "file under the read-only grant", readFile(t, filepath.Join(real, "ws", "sub", "keep")), "keep")
	if target, err := os.Readlink(filepath.Join(real, "ws", "inner")); err != nil || target != "sub" {
		t.Errorf("the host's link: %q %v", target, err)
	}
}

// hostVictim is a host process whose pid no process of a fresh PID
// namespace has (the sandbox numbers its own from 1), ended with the test.
func hostVictim(t *testing.T) *exec.Cmd {
	t.Helper()
	for {
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if cmd.Process.Pid > 64 {
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			return cmd
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}
