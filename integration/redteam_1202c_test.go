//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Third red-team pass of 2026-12-02 (after redteam_1202b_test.go): a
// payload against bubblewrap mode's layers, a session's commands and init,
// and the shims layer. A test that passes is a promise that held; one that
// fails is a hole, described where it fails.

// mountFamily tries every way to change or leave the mount that argv[1]
// is, and prints one "NAME outcome" line each ("ok" when the call worked).
const mountFamily = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def sc(name, nr, *a):
    r = libc.syscall(nr, *a)
    print(name, "ok" if r >= 0 else os.strerror(ctypes.get_errno()), flush=True)
class Attr(ctypes.Structure):
    _fields_ = [("set", ctypes.c_uint64), ("clr", ctypes.c_uint64), ("prop", ctypes.c_uint64), ("userns", ctypes.c_uint64)]
t = sys.argv[1].encode()
sc("umount2", 166, t, 2)
sc("remount", 165, None, t, None, 0x20 | 0x1000, None)
a = Attr(0, 1, 0, 0)
sc("mount_setattr", 442, -100, t, 0, ctypes.byref(a), ctypes.sizeof(a))
sc("open_tree", 428, -100, t, 1 | 0x80000)
sc("fsopen", 430, b"tmpfs", 0)
sc("fspick", 433, -100, t, 0)
sc("pivot_root", 155, b"/", b"/")
sc("chroot", 161, b"/")
sc("unshare", 272, 0x20000)
sc("mknod", 133, (os.path.dirname(t.decode()) + "/null").encode(), 0o20666, (1 << 8) | 3)
try:
    with open(sys.argv[1] + "/f", "w") as f: f.write("changed\n")
    print("write ok")
except OSError as e:
    print("write", e.strerror)
`

// With capabilities given back in bubblewrap mode (--cap-add
// CAP_SYS_ADMIN, held in the sandbox's user namespace, also for a user),
// the payload still cannot unmount, remount read-write, clear a
// read-only attribute, clone or pick a mount, make a file system, pivot,
// chroot, unshare or make a device node: a directory the view shows
// read-only (over one it shows writable) stays unwritten.
func TestRedteamBwrapCapAddMountFamily(t *testing.T) {
	py := needPython(t)
	ws := workspace(t)
	ro := filepath.Join(ws, "ro")
	writeFile(t, filepath.Join(ro, "f"), "host\n")
	writeFile(t, filepath.Join(ws, "m.py"), mountFamily)
	for _, caps := range [][]string{nil, {"--cap-add", "CAP_SYS_ADMIN"}, {"--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_MKNOD", "--unshare-user"}} {
		args := append([]string{"bwrap", "--ro-bind", "/", "/", "--bind", ws, ws, "--ro-bind", ro, ro}, caps...)
		args = append(args, "--", py, filepath.Join(ws, "m.py"), ro)
		r := run(t, "/", args...)
		if r.code != 0 {
			t.Fatalf("nsrun %v: %v", args, r)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasSuffix(line, " ok") {
				t.Errorf("nsrun %v: %s", args, line)
			}
		}
		expect(t, "the read-only directory's file", readFile(t, filepath.Join(ro, "f")), "host\n")
	}
}

// TIOCSTI and TIOCLINUX with bits set above the low 32 (the kernel reads
// the command as 32 bits; a filter comparing 64 would let them through):
// refused by nsrun's filter in bubblewrap mode, with and without
// --new-session. stdin is /dev/null, where the ioctl itself would fail
// with ENOTTY: EPERM is the filter's.
func TestRedteamBwrapTiocstiHighBits(t *testing.T) {
	for _, session := range [][]string{nil, {"--new-session"}} {
		for _, cmd := range []string{"0x5412", "0x100005412", "0xffffffff00005412", "0x541c", "0x10000541c"} {
			args := append(append([]string{"bwrap", "--ro-bind", "/", "/"}, session...), "--", syscBin, "raw", "16", "0", cmd, "0")
			r := run(t, "/", args...)
			expect(t, "nsrun "+strings.Join(args, " "), r.stdout, "EPERM")
		}
	}
}

// The descriptors nsrun reads or writes for the caller (--info-fd,
// --json-status-fd, --sync-fd, --block-fd, --file, --bind-data, --args)
// do not reach the command: it cannot forge the JSON the caller reads
// (another child-pid, exit-code 0) nor keep --sync-fd open.
func TestRedteamBwrapCallerDescriptors(t *testing.T) {
	py := needPython(t)
	ws := workspace(t)
	data := filepath.Join(ws, "data")
	writeFile(t, data, "x")
	args := filepath.Join(ws, "args")
	writeFile(t, args, "--setenv\x00A\x00B\x00")
	info, status, sync := filepath.Join(ws, "info"), filepath.Join(ws, "status"), filepath.Join(ws, "sync")
	probe := `
import os
for fd in range(3, 12):
    try:
        os.write(fd, b'{"child-pid": 1, "exit-code": 0}\n'); print(fd, "written")
    except OSError as e:
        print(fd, e.strerror)
os._exit(7)
`
	cmd := exec.Command(nsrunBin, "bwrap", "--ro-bind", "/", "/", "--info-fd", "5", "--json-status-fd", "6", "--sync-fd", "7",
		"--block-fd", "8", "--tmpfs", "/t", "--file", "9", "/t/f", "--bind-data", "10", "/t/g", "--args", "11", "--", py, "-c", probe)
	var files []*os.File
	open := func(path string, flag int) *os.File {
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		return f
	}
	devnull := open(os.DevNull, os.O_RDONLY)
	cmd.ExtraFiles = []*os.File{devnull, devnull, // 3, 4
		open(info, os.O_WRONLY|os.O_CREATE), open(status, os.O_WRONLY|os.O_CREATE), open(sync, os.O_WRONLY|os.O_CREATE),
		devnull, open(data, os.O_RDONLY), open(data, os.O_RDONLY), open(args, os.O_RDONLY)}
	out, err := cmd.Output()
	for _, f := range files {
		f.Close()
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("nsrun %v: %v\n%s", cmd.Args, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// 3 and 4 are the caller's own /dev/null, left open on purpose.
		if strings.HasSuffix(line, " written") && !strings.HasPrefix(line, "3 ") && !strings.HasPrefix(line, "4 ") {
			t.Errorf("the command reached a descriptor of nsrun's: %s", line)
		}
	}
	expect(t, "--sync-fd's file", readFile(t, sync), "")
	for _, f := range []string{info, status} {
		b := readFile(t, f)
		if strings.Contains(b, `"child-pid": 1,`) {
			t.Errorf("%s holds the command's forged JSON: %s", f, b)
		}
	}
	dec := json.NewDecoder(strings.NewReader(readFile(t, status)))
	var last map[string]any
	for dec.More() {
		if err := dec.Decode(&last); err != nil {
			t.Fatalf("--json-status-fd: %v", err)
		}
	}
	if code, _ := last["exit-code"].(float64); code != 7 {
		t.Errorf("--json-status-fd's last object: %v, want exit-code 7", last)
	}
}

// procWalker tries, for every process the sandbox's /proc shows, to
// append to argv[1] through /proc/PID/root (the process's root, which for
// a host process is the host's writable tree) and to read
// /proc/PID/environ; it prints what worked.
const procWalker = `
import os, sys
victim = sys.argv[1]
for p in os.listdir("/proc"):
    if not p.isdigit(): continue
    try:
        with open("/proc/%s/root%s" % (p, victim), "a") as f: f.write("escaped\n")
        print(p, "root written")
    except OSError: pass
    try:
        if b"NSRUN_RT_MARK" in open("/proc/%s/environ" % p, "rb").read(): print(p, "environ read")
    except OSError: pass
print("done")
`

// Under `--ro-bind / /` without `--proc /proc`, the sandbox shows the
// host's /proc (read-only), host processes of the same user included. Their
// /proc/PID/root leads into the host's mount namespace, where the victim
// is writable; Landlock's scoping (the payload's domain may not trace a
// process outside it) keeps the payload out. Without Landlock, nsrun
// refuses to show the host's /proc.
func TestRedteamBwrapHostProcRoot(t *testing.T) {
	py := needPython(t)
	ws := workspace(t)
	victim := filepath.Join(ws, "victim")
	writeFile(t, victim, "host\n")
	if err := os.Chmod(victim, 0o666); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "w.py"), procWalker)
	args := []string{"bwrap", "--ro-bind", "/", "/", "--unsetenv", "NSRUN_RT_MARK", "--", py, filepath.Join(ws, "w.py"), victim}
	r := runEnv(t, "/", []string{"NSRUN_RT_MARK=1"}, args...)
	expect(t, "nsrun "+strings.Join(args, " "), r.stdout, "done")
	expect(t, "the victim", readFile(t, victim), "host\n")

	r = runEnv(t, "/", []string{"NSRUN_BWRAP_LANDLOCK=off"}, args...)
	if r.code != 1 || !strings.Contains(r.stderr, "--proc host needs Landlock") {
		t.Errorf("NSRUN_BWRAP_LANDLOCK=off nsrun %v: want the refusal, got %v", args, r)
	}
	expect(t, "the victim", readFile(t, victim), "host\n")
}

// streamReopen opens /proc/self/fd/1 anew (the magic link reaches the
// file itself, wherever it is) for reading, truncating and both, and
// prints each outcome to stderr.
const streamReopen = `
import os, sys
for mode, name in ((os.O_RDONLY, "read"), (os.O_WRONLY | os.O_TRUNC, "trunc"), (os.O_RDWR, "rdwr")):
    try:
        fd = os.open("/proc/self/fd/1", mode)
        print(name, "opened", os.read(fd, 100) if name != "trunc" else b"", file=sys.stderr)
    except OSError as e:
        print(name, e.strerror, file=sys.stderr)
`

// A file the caller gives as the command's stdout (opened for appending)
// that the view does not show: bubblewrap mode's Landlock, derived from
// the view, refuses the command's reopening it through /proc/self/fd/1
// to read it or truncate it.
func TestRedteamBwrapStdoutReopen(t *testing.T) {
	py := needPython(t)
	ws := workspace(t)
	log := filepath.Join(ws, "hidden", "log")
	writeFile(t, log, "earlier secret\n")
	writeFile(t, filepath.Join(ws, "r.py"), streamReopen)
	pyDir := filepath.Dir(py)
	args := []string{"bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
		"--symlink", "usr/bin", "/bin", "--ro-bind", filepath.Join(ws, "r.py"), "/r.py", "--", filepath.Join(pyDir, "python3"), "/r.py"}
	stderr := runWithStdout(t, log, nil, args...)
	expect(t, "reopening stdout", stderr, "read Permission denied\ntrunc Permission denied\nrdwr Permission denied")
	expect(t, "the caller's file", readFile(t, log), "earlier secret\n")
}

// A one-shot run's stdout is a file under a --deny path
// (`nsrun --deny ~/private -- cmd >>~/private/log`). The payload may
// reopen /proc/self/fd/1 read-only and read the whole file: full mode's
// Landlock reads beneath / and --deny is a mount over the directory,
// which the magic link does not cross (docs/SECURITY.md says so, and to
// give such a stream through a pipe). Truncating it or opening it for
// reading and writing stays refused (Landlock gives no write there), and
// the file is unchanged. bubblewrap mode refuses the read too
// (TestRedteamBwrapStdoutReopen): its rules are derived from the view.
// The same holds for `nsrun exec` into a session with the same rules.
func TestRedteamDenyStdoutReopen(t *testing.T) {
	py := needPython(t)
	ws := workspace(t)
	private := filepath.Join(ws, "private")
	log := filepath.Join(private, "log")
	writeFile(t, log, "earlier secret\n")
	writeFile(t, filepath.Join(ws, "r.py"), streamReopen)
	args := []string{"--ro", ws, "--deny", private, "--", py, filepath.Join(ws, "r.py")}
	stderr := runWithStdout(t, log, nil, args...)
	expect(t, "nsrun "+strings.Join(args, " ")+" >>"+log+": reopening stdout", stderr,
		"read opened b'earlier secret\\n'\ntrunc Permission denied\nrdwr Permission denied")
	expect(t, "the caller's file", readFile(t, log), "earlier secret\n")

	// The same through a session's exec, which passes the caller's
	// streams to the command as they are.
	e := newSessionEnv(t)
	e.start("denied", "--ro", ws, "--deny", private)
	args = []string{"exec", "denied", "--", py, filepath.Join(ws, "r.py")}
	stderr = runWithStdout(t, log, e.env, args...)
	expect(t, "nsrun "+strings.Join(args, " ")+" >>"+log+": reopening stdout", stderr,
		"read opened b'earlier secret\\n'\ntrunc Permission denied\nrdwr Permission denied")
	expect(t, "the caller's file", readFile(t, log), "earlier secret\n")
}

// runWithStdout runs nsrun with its stdout appended to path and returns
// its stderr; env is added to this process's environment.
func runWithStdout(t *testing.T, path string, env []string, args ...string) string {
	t.Helper()
	need(t)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(nsrunBin, args...)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = f
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("nsrun %v: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimSpace(stderr.String())
}

// The shims layer (a version manager's shims directory, writable in a
// layer of the sandbox's own): the payload writes, adds and removes there
// freely, but nothing reaches the host: the directory cannot be renamed
// away, its files cannot be moved or hard-linked out, a host file cannot
// be hard-linked in, and its parent stays read-only.
func TestRedteamShimsLayer(t *testing.T) {
	ws := workspace(t)
	shims := filepath.Join(ws, ".pyenv", "shims")
	writeFile(t, filepath.Join(shims, "python"), "host shim\n")
	writeFile(t, filepath.Join(ws, "other", "f"), "host file\n")
	script := `S=$HOME/.pyenv/shims
echo new > $S/python; echo write=$?
echo new > $S/added; echo add=$?
mv $S $HOME/.pyenv/moved 2>/dev/null; echo mvdir=$?
mv $HOME/.pyenv $HOME/moved 2>/dev/null; echo mvparent=$?
ln $S/python $HOME/other/hl 2>/dev/null; echo lnout=$?
ln $HOME/other/f $S/hl 2>/dev/null; echo lnin=$?
mv $S/python $HOME/other/p 2>/dev/null; echo mvout=$?
touch $S/../x 2>/dev/null; echo touchparent=$?
rm -rf $S/*; echo rm=$?`
	env := []string{"HOME=" + ws, "PYENV_ROOT=" + filepath.Join(ws, ".pyenv")}
	r := runEnv(t, "/", env, "--ro", ws, "--", "/bin/sh", "-c", script)
	expect(t, "the payload's attempts", r.stdout, "write=0\nadd=0\nmvdir=1\nmvparent=1\nlnout=1\nlnin=1\nmvout=1\ntouchparent=1\nrm=0")
	expect(t, "the host's shim", readFile(t, filepath.Join(shims, "python")), "host shim\n")
	expect(t, "the host's file", readFile(t, filepath.Join(ws, "other", "f")), "host file\n")
	entries, _ := os.ReadDir(shims)
	if len(entries) != 1 {
		t.Errorf("the host's shims directory holds %d entries, want 1 (python)", len(entries))
	}
	for _, p := range []string{filepath.Join(ws, ".pyenv", "moved"), filepath.Join(ws, "moved"), filepath.Join(ws, "other", "hl"), filepath.Join(ws, "other", "p"), filepath.Join(ws, ".pyenv", "x")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
}

// A session's command sees only its three standard streams (no control
// socket, no other command's streams, no descriptor of the init's), and
// cannot read the init's descriptors or environment.
func TestRedteamSessionExecDescriptors(t *testing.T) {
	e := newSessionEnv(t)
	e.start("fds")
	r := e.exec("fds", "/bin/sh", "-c", `ls /proc/self/fd | sort -n | tr '\n' ' '; echo; ls -l /proc/1/fd/ 2>&1 | grep -c -- '->'; cat /proc/1/environ >/dev/null 2>&1; echo environ=$?; cat /proc/1/maps >/dev/null 2>&1; echo maps=$?`)
	// ls's own directory descriptor is 3.
	expect(t, "an exec's descriptors, the init's", r.stdout, "0 1 2 3 \n0\nenviron=1\nmaps=1")
}

// `--cap-add ALL`, as bubblewrap takes it, works alone and with a
// --cap-drop after it. ALL was every bit of a uint64, and the kernel
// refuses capabilities past /proc/sys/kernel/cap_last_cap (the ambient
// raise) with EINVAL: every such run failed with "create namespaces and
// start the init: invalid argument". nsrun now masks it with the
// capabilities the kernel has.
func TestRedteamBwrapCapAddAll(t *testing.T) {
	for _, caps := range [][]string{{"--cap-add", "ALL"}, {"--cap-add", "ALL", "--cap-drop", "CAP_SYS_ADMIN"}} {
		args := append(append([]string{"bwrap", "--ro-bind", "/", "/"}, caps...), "--", "/bin/sh", "-c", "grep CapEff /proc/self/status")
		r := run(t, "/", args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "CapEff:") {
			t.Errorf("nsrun %v: %v", args, r)
		}
	}
}

// Destinations that lead through a symlink to a host file or directory
// the view shows read-only: through one the command line made in a
// --tmpfs (--file, --bind-data), and through one already in a writable
// host tree (--symlink, --dir, a later mount's mount point, --chmod,
// --tmpfs). Each is refused (exit 1, one line); nothing is made or
// changed on the host.
func TestRedteamBwrapDestThroughSymlink(t *testing.T) {
	ws, victimDir := workspace(t), workspace(t)
	victim := filepath.Join(victimDir, "victim")
	writeFile(t, victim, "host\n")
	link := filepath.Join(ws, "link")
	if err := os.Symlink(victimDir, link); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(ws, "data")
	writeFile(t, data, "PLANTED\n")
	bind := []string{"--bind", ws, ws}
	for _, opts := range [][]string{
		{"--tmpfs", "/t", "--symlink", victim, "/t/l", "--file", "5", "/t/l"},
		{"--tmpfs", "/t", "--symlink", victimDir, "/t/l", "--file", "5", "/t/l/victim"},
		{"--tmpfs", "/t", "--symlink", victimDir, "/t/l", "--bind-data", "5", "/t/l/new"},
		{"--tmpfs", "/t", "--symlink", victim, "/t/l", "--chmod", "0666", "/t/l"},
		append(bind, "--symlink", "x", filepath.Join(link, "new")),
		append(bind, "--dir", filepath.Join(link, "new")),
		append(bind, "--perms", "0777", "--dir", filepath.Join(link, "new")),
		append(bind, "--ro-bind", data, filepath.Join(link, "new")),
		append(bind, "--chmod", "0666", filepath.Join(link, "victim")),
		append(bind, "--tmpfs", filepath.Join(link, "new")),
	} {
		args := append(append([]string{"bwrap", "--ro-bind", "/", "/"}, opts...), "--", "/bin/true")
		cmd := exec.Command(nsrunBin, args...)
		f, err := os.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		cmd.ExtraFiles = []*os.File{nil, nil, f} // 5
		out, err := cmd.CombinedOutput()
		f.Close()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
			t.Errorf("nsrun %v: want a one-line refusal (exit 1), got %v: %s", args, err, out)
		}
		expect(t, "the victim", readFile(t, victim), "host\n")
		fi, err := os.Stat(victim)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("the victim's mode after nsrun %v: %v %v", args, fi.Mode(), err)
		}
		if _, err := os.Lstat(filepath.Join(victimDir, "new")); err == nil {
			t.Fatalf("nsrun %v made %s", args, filepath.Join(victimDir, "new"))
		}
	}
}

// docs/BWRAP.md says `--remount-ro DEST` makes a bind at DEST read-only
// "submounts too (bubblewrap's is not recursive)": a host mount below
// DEST, and the binds and tmpfs earlier options put below DEST
// (`--bind W W --bind W/sub W/sub --remount-ro W`). Before, the deepest
// rule (W/sub's writable bind) decided and the command wrote W/sub/f on
// the host.
func TestRedteamBwrapRemountRoSubmounts(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "f"), "host\n")
	writeFile(t, filepath.Join(ws, "sub", "f"), "host\n")
	if os.Getuid() == 0 {
		// A host mount below the bind.
		writeFile(t, filepath.Join(ws, "hsub", "f"), "host\n")
		hsub := filepath.Join(ws, "hsub")
		if out, err := exec.Command("mount", "--bind", hsub, hsub).CombinedOutput(); err != nil {
			t.Fatalf("mount --bind %s: %v %s", hsub, err, out)
		}
		t.Cleanup(func() { _ = exec.Command("umount", hsub).Run() })
	}
	args := []string{"bwrap", "--ro-bind", "/", "/", "--bind", ws, ws, "--bind", filepath.Join(ws, "sub"), filepath.Join(ws, "sub"),
		"--remount-ro", ws, "--", "/bin/sh", "-c", "for d in . sub hsub; do (echo changed > " + ws + "/$d/f) 2>/dev/null; echo $d=$?; done"}
	r := run(t, "/", args...)
	// Without root there is no hsub: the shell's error is 2 as well.
	expect(t, "nsrun "+strings.Join(args, " "), r.stdout, ".=2\nsub=2\nhsub=2")
	for _, d := range []string{".", "sub", "hsub"} {
		if b, err := os.ReadFile(filepath.Join(ws, d, "f")); err == nil && string(b) != "host\n" {
			t.Errorf("%s/f on the host: %q", d, b)
		}
	}
}
