//go:build linux

package integration

import (
	"context"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// bwrapFixture is a workspace as the agent tools bind it: W writable, with
// a protected .git/hooks, a secret file and a secret directory in it, and
// a host file outside it.
type bwrapFixture struct {
	w, hooks, env, secretDir, outside string
}

func newBwrapFixture(t *testing.T) bwrapFixture {
	t.Helper()
	w := workspace(t)
	f := bwrapFixture{w: w, hooks: filepath.Join(w, ".git/hooks"), env: filepath.Join(w, ".env"),
		secretDir: filepath.Join(w, "secrets"), outside: filepath.Join(workspace(t), "host.txt")}
	writeFile(t, filepath.Join(f.hooks, "pre-commit"), "hook")
	writeFile(t, f.env, "TOKEN=secret")
	writeFile(t, filepath.Join(f.secretDir, "key"), "key")
	writeFile(t, f.outside, "host")
	return f
}

// bwrapHelper runs the helper through `nsrun bwrap ARGS... -- helper OP`
// and returns its answer.
func bwrapHelper(t *testing.T, args []string, op string, opArgs ...string) string {
	t.Helper()
	argv := append(append(append([]string{"bwrap"}, args...), "--", helperBin, op), opArgs...)
	r := run(t, "/", argv...)
	if r.code != 0 {
		t.Fatalf("nsrun %v: %v", argv, r)
	}
	return r.stdout
}

// TestBwrapSandboxRuntimeShape runs the argument list Anthropic's
// sandbox-runtime builds for a write-restricted command with no network
// (linux-sandbox-utils.ts: --new-session --die-with-parent, --unshare-net,
// --ro-bind / /, --bind per writable path, --ro-bind per denied path inside
// it, --tmpfs and --ro-bind /dev/null for denied reads, --dev /dev,
// --unshare-pid, --proc /proc) and checks what each part gives.
func TestBwrapSandboxRuntimeShape(t *testing.T) {
	f := newBwrapFixture(t)
	args := []string{"--new-session", "--die-with-parent", "--unshare-net",
		"--ro-bind", "/", "/", "--bind", f.w, f.w, "--ro-bind", f.hooks, f.hooks,
		"--tmpfs", f.secretDir, "--ro-bind", "/dev/null", f.env,
		"--dev", "/dev", "--unshare-pid", "--proc", "/proc"}
	for _, c := range []struct{ op, path, want string }{
		{"write", f.outside, "EROFS"},
		{"write", filepath.Join(f.w, "out"), "ok"},
		{"write", filepath.Join(f.hooks, "pre-commit"), "EROFS"},
		{"read", f.env, `""`},
		{"write", f.env, "EROFS"},
		{"ls", f.secretDir, ""},
	} {
		expect(t, c.op+" "+c.path, bwrapHelper(t, args, c.op, c.path), c.want)
	}
	expect(t, "host file", readFile(t, f.outside), "host")
	expect(t, "hook", readFile(t, filepath.Join(f.hooks, "pre-commit")), "hook")
	expect(t, "secret", readFile(t, f.env), "TOKEN=secret")
	expect(t, "written", readFile(t, filepath.Join(f.w, "out")), "x")
	// --unshare-net: a network of its own, loopback up (sandbox-runtime
	// runs its proxy bridges on it).
	expect(t, "interfaces", bwrapHelper(t, args, "ifaces"), "lo:up")
	expect(t, "loopback", bwrapHelper(t, args, "loopback"), "ok")
}

// TestBwrapCodexShape runs the argument list of Codex's Linux sandbox
// (linux-sandbox/src/bwrap.rs) for a workspace-write policy without network,
// with its --argv0.
func TestBwrapCodexShape(t *testing.T) {
	f := newBwrapFixture(t)
	git := filepath.Join(f.w, ".git")
	args := []string{"--new-session", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
		"--bind", f.w, f.w, "--ro-bind", git, git, "--unshare-user", "--unshare-pid", "--unshare-net",
		"--proc", "/proc", "--chdir", f.w}
	expect(t, "write outside", bwrapHelper(t, args, "write", f.outside), "EROFS")
	expect(t, "write the workspace", bwrapHelper(t, args, "write", "new"), "ok")
	expect(t, "written in the workspace, the working directory", readFile(t, filepath.Join(f.w, "new")), "x")
	expect(t, "write .git", bwrapHelper(t, args, "write", filepath.Join(git, "config")), "EROFS")
	expect(t, "host file", readFile(t, f.outside), "host")

	r := run(t, "/", append(append([]string{"bwrap"}, args...), "--argv0", "codex-linux-sandbox", "--", "sh", "-c", "echo $0")...)
	expect(t, "--argv0", r.stdout, "codex-linux-sandbox")
}

// TestBwrapNetwork: bubblewrap shares the network unless told not to, so
// nsrun's bubblewrap mode does; --unshare-net and --unshare-all give a
// network of the sandbox's own, --share-net after --unshare-all the
// host's again.
func TestBwrapNetwork(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "ok"},
		{[]string{"--unshare-net"}, "ECONNREFUSED"},
		{[]string{"--unshare-all"}, "ECONNREFUSED"},
		{[]string{"--unshare-all", "--share-net"}, "ok"},
	} {
		args := append([]string{"--ro-bind", "/", "/"}, c.args...)
		expect(t, strings.Join(c.args, " "), bwrapHelper(t, args, "connect", port), c.want)
	}
}

// TestBwrapExitStatus: the command's status passes through; bubblewrap's
// own failures are exit 1 with a "bwrap: " line.
func TestBwrapExitStatus(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stderr string // a prefix of stderr
	}{
		{[]string{"--ro-bind", "/", "/", "true"}, 0, ""},
		{[]string{"--ro-bind", "/", "/", "sh", "-c", "exit 7"}, 7, ""},
		{[]string{"--ro-bind", "/", "/", "sh", "-c", "kill -9 $$"}, 137, ""},
		{[]string{"--ro-bind", "/", "/", "no-such-command-here"}, 1, "bwrap: execvp no-such-command-here: No such file or directory"},
		{[]string{"--ro-bind", "/"}, 1, "bwrap: --ro-bind takes two arguments"},
		{[]string{"--bogus", "true"}, 1, "bwrap: Unknown option --bogus"},
		{[]string{"--ro-bind", "/no/such/source", "/x", "true"}, 1, "bwrap: Can't find source path /no/such/source: No such file or directory"},
		{[]string{"--perms", "0700", "--dir", "/tmp/d", "true"}, 1, "bwrap: --perms is not supported by nsrun's bubblewrap mode"},
		{[]string{"--level-prefix", "--ro-bind", "/", "/", "--exec-label", "x", "true"}, 1, "<3>bwrap: --exec-label is not supported"},
		{[]string{"--unshare-pid"}, 1, "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]"},
	} {
		r := run(t, "/", append([]string{"bwrap"}, c.args...)...)
		if r.code != c.code || !strings.HasPrefix(r.stderr, c.stderr) || (c.stderr == "" && r.stderr != "") {
			t.Errorf("bwrap %q: %v; want exit %d, stderr %q", c.args, r, c.code, c.stderr)
		}
	}
}

// TestBwrapName: a symlink called bwrap runs nsrun's bubblewrap mode, as
// Codex and sandbox-runtime find it on PATH; --help and --version answer as
// bubblewrap's do.
func TestBwrapName(t *testing.T) {
	need(t)
	dir := workspace(t)
	link := filepath.Join(dir, "bwrap")
	if err := os.Symlink(nsrunBin, link); err != nil {
		t.Fatal(err)
	}
	f := newBwrapFixture(t)
	for _, c := range []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"--ro-bind", "/", "/", "--bind", f.w, f.w, "--", helperBin, "write", filepath.Join(f.w, "x")}, 0, "ok"},
		{[]string{"--ro-bind", "/", "/", "--", helperBin, "write", f.outside}, 0, "EROFS"},
		{[]string{"--version"}, 0, "bubblewrap 0.12.0 (nsrun "},
		{[]string{"--help"}, 0, "usage: " + link + " [OPTIONS...] [--] COMMAND [ARGS...]"},
	} {
		out, code := runLink(t, link, c.args...)
		if code != c.code || !strings.HasPrefix(out, c.stdout) {
			t.Errorf("%s %q: exit %d, stdout %q; want %d, %q", link, c.args, code, out, c.code, c.stdout)
		}
	}
	help, _ := runLink(t, link, "--help")
	for _, opt := range []string{"--bind SRC DEST", "--ro-bind SRC DEST", "--unshare-net", "--die-with-parent", "--new-session", "--args FD",
		"--argv0 VALUE", "--as-pid-1", "--cap-add CAP", "--perms OCTAL", "--info-fd FD", "--overlay-src SRC", "--overlay RWSRC WORKDIR DEST",
		"--tmp-overlay DEST", "--ro-overlay DEST"} {
		if !strings.Contains(help, opt) {
			t.Errorf("--help does not list %s", opt)
		}
	}
	// Only what is supported: Codex takes a bwrap whose --help names
	// --as-pid-1 and --perms for one that has them.
	for _, opt := range []string{"--seccomp", "--chmod", "--mqueue"} {
		if strings.Contains(help, opt) {
			t.Errorf("--help lists %s, which nsrun's bubblewrap mode refuses", opt)
		}
	}
	expect(t, "host file", readFile(t, f.outside), "host")
}

// runLink runs path (a link to nsrun) with args and returns its stdout and
// exit status.
func runLink(t *testing.T, path string, args ...string) (string, int) {
	t.Helper()
	saved := nsrunBin
	nsrunBin = path
	defer func() { nsrunBin = saved }()
	r := run(t, "/", args...)
	return r.stdout, r.code
}

// TestBwrapEnvironment: --setenv, --unsetenv and --clearenv edit the
// environment in order; PWD is the working directory.
func TestBwrapEnvironment(t *testing.T) {
	f := newBwrapFixture(t)
	r := runEnv(t, "/", []string{"BWRAP_A=1", "BWRAP_B=2"}, "bwrap", "--ro-bind", "/", "/", "--chdir", f.w,
		"--unsetenv", "BWRAP_A", "--setenv", "BWRAP_C", "3", "--", "sh", "-c", `echo "${BWRAP_A-unset} $BWRAP_B $BWRAP_C $PWD"`)
	expect(t, "edited", r.stdout, "unset 2 3 "+f.w)
	r = runEnv(t, "/", []string{"BWRAP_A=1"}, "bwrap", "--ro-bind", "/", "/", "--chdir", f.w, "--clearenv",
		"--setenv", "BWRAP_C", "3", "--", "/usr/bin/env")
	lines := strings.Fields(r.stdout)
	for _, want := range []string{"BWRAP_C=3", "PWD=" + f.w} {
		if !slices.Contains(lines, want) {
			t.Errorf("--clearenv: env %q lacks %s", lines, want)
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "BWRAP_A=") || strings.HasPrefix(l, "PATH=") {
			t.Errorf("--clearenv: env has %s", l)
		}
	}
}

// TestBwrapArgsFD: --args reads options from a descriptor, as Flatpak
// passes them.
func TestBwrapArgsFD(t *testing.T) {
	f := newBwrapFixture(t)
	data := filepath.Join(workspace(t), "args")
	writeFile(t, data, "--ro-bind\x00/\x00/\x00--bind\x00"+f.w+"\x00"+f.w+"\x00")
	out := runShell(t, `exec "$0" bwrap --args 3 -- "$1" write "$2" 3<"$3"`, nsrunBin, helperBin, filepath.Join(f.w, "y"), data)
	expect(t, "write through --args", out, "ok")
	expect(t, "written", readFile(t, filepath.Join(f.w, "y")), "x")
}

// runShell runs a shell script with args ($0, $1, ...) and returns its
// output; a failure fails the test.
func runShell(t *testing.T, script string, args ...string) string {
	t.Helper()
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("sh -c %q: %v\n%s", script, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestBwrapProcessSettings: bubblewrap's process settings beyond nsrun's
// policy: --argv0, the payload as pid 1 (--as-pid-1, with no nsrun init),
// an environment without NSRUN_SANDBOX, /dev/core under --dev, and the
// capabilities: a root caller's own kept (bubblewrap passes them on),
// --cap-drop and --cap-add in order, none for a user by default.
func TestBwrapProcessSettings(t *testing.T) {
	base := []string{"bwrap", "--ro-bind", "/", "/", "--unshare-pid"}
	bw := func(args ...string) result {
		t.Helper()
		return run(t, "/", append(append([]string{}, base...), args...)...)
	}
	expect(t, "--argv0", bw("--argv0", "right", "sh", "-c", "echo $0").stdout, "right")
	expect(t, "argv[0] by default", bw("sh", "-c", "echo $0").stdout, "sh")

	r := bw("--as-pid-1", "sh", "-c", "echo $$; exit 3")
	if r.code != 3 || r.stdout != "1" {
		t.Errorf("--as-pid-1: %v; want pid 1 and exit 3", r)
	}
	r = bw("--as-pid-1", "--proc", "/proc", "sh", "-c", "cat /proc/1/cmdline | tr '\\0' ' '")
	expect(t, "--as-pid-1: no init", r.stdout, "sh -c cat /proc/1/cmdline | tr '\\0' ' '")
	r = bw("--proc", "/proc", "sh", "-c", "cat /proc/1/cmdline")
	expect(t, "nsrun's init is pid 1 without --as-pid-1", r.stdout, "nsrun-init\x00")
	out := runShell(t, `exec "$0" bwrap --ro-bind / / --unshare-pid --as-pid-1 sh -c 'read x <&5; echo $x' 5<<EOF
five
EOF`, nsrunBin)
	expect(t, "--as-pid-1: an inherited descriptor", out, "five")

	r = runEnv(t, "/", []string{"BWRAP_A=1"}, append(append([]string{}, base...), "--chdir", "/", "--clearenv", "/usr/bin/env")...)
	expect(t, "--clearenv: PWD alone, no NSRUN_SANDBOX", r.stdout, "PWD=/")
	expect(t, "/dev/core under --dev", bw("--dev", "/dev", "readlink", "/dev/core").stdout, "/proc/kcore")
	if r := bw("--dev", "/dev", "--ro-bind", "/", "/", "test", "-e", "/dev/core"); r.code == 0 {
		t.Error("/dev/core without --dev of the caller's")
	}

	capEff := func(args ...string) string {
		t.Helper()
		r := bw(append(args, "sh", "-c", "grep ^CapEff: /proc/self/status | cut -f2")...)
		if r.code != 0 {
			t.Fatalf("%q: %v", args, r)
		}
		return strings.TrimSpace(r.stdout)
	}
	if os.Getuid() == 0 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		var own string
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
				own = strings.TrimSpace(v)
			}
		}
		expect(t, "root: the caller's capabilities", capEff(), own)
		expect(t, "root: --cap-drop ALL", capEff("--cap-drop", "ALL"), "0000000000000000")
		expect(t, "root: --cap-drop ALL --cap-add CAP_KILL", capEff("--cap-drop", "ALL", "--cap-add", "CAP_KILL"), "0000000000000020")
	} else {
		expect(t, "user: no capabilities", capEff(), "0000000000000000")
		expect(t, "user: --cap-add CAP_KILL", capEff("--cap-add", "CAP_KILL"), "0000000000000020")
		expect(t, "user: --as-pid-1, no capabilities", capEff("--as-pid-1"), "0000000000000000")
	}
}

// TestBwrapStatusFDs: --info-fd and --json-status-fd carry bubblewrap's
// JSON: the sandbox's first process and the namespaces the command is in
// (the mount namespace and those unshared), then, on --json-status-fd, the
// command's exit status, which a command that could not be executed does
// not get.
func TestBwrapStatusFDs(t *testing.T) {
	dir := workspace(t)
	info, status := filepath.Join(dir, "info.json"), filepath.Join(dir, "status.json")
	out := runShell(t, `"$0" bwrap --ro-bind / / --proc /proc --unshare-all --info-fd 8 --json-status-fd 9 -- \
		sh -c 'for n in ipc mnt net pid uts; do stat -L -c "%i" /proc/self/ns/$n; done; exit 42' 8>"$1" 9>"$2"; echo "exit $?"`,
		nsrunBin, info, status)
	lines := strings.Fields(out)
	if len(lines) != 7 || lines[5] != "exit" || lines[6] != "42" {
		t.Fatalf("output %q, want five namespace inodes and exit 42", out)
	}
	infoText, statusText := readFile(t, info), readFile(t, status)
	if !strings.HasPrefix(infoText, "{\n    \"child-pid\": ") || !strings.HasSuffix(infoText, "\n}\n") {
		t.Errorf("--info-fd: %q", infoText)
	}
	for i, n := range []string{"ipc", "mnt", "net", "pid", "uts"} {
		want := `"` + n + `-namespace": ` + lines[i]
		if !strings.Contains(infoText, want) || !strings.Contains(statusText, want) {
			t.Errorf("%s: info %q, status %q; want %s in both", n, infoText, statusText, want)
		}
	}
	first, last, _ := strings.Cut(strings.TrimSuffix(statusText, "\n"), "\n")
	if !strings.HasPrefix(first, `{ "child-pid": `) || last != `{ "exit-code": 42 }` {
		t.Errorf("--json-status-fd: %q", statusText)
	}

	runShell(t, `"$0" bwrap --ro-bind / / --json-status-fd 9 / 9>"$1" || true`, nsrunBin, status)
	if s := readFile(t, status); strings.Contains(s, "exit-code") {
		t.Errorf("--json-status-fd of a command not executed: %q", s)
	}
	// Only the namespaces asked for are listed, as bubblewrap lists them.
	runShell(t, `"$0" bwrap --ro-bind / / --info-fd 8 true 8>"$1"`, nsrunBin, info)
	if s := readFile(t, info); !strings.Contains(s, `"mnt-namespace"`) || strings.Contains(s, `"net-namespace"`) {
		t.Errorf("--info-fd without --unshare-*: %q", s)
	}
}

// TestBwrapModesAndData: --perms and --size before --tmpfs; --file,
// --bind-data and --ro-bind-data make a file holding what a descriptor
// gives, with bubblewrap's modes (0666, 0600, 0600, or --perms), the last
// read-only; nsrun makes them in a tmpfs of the sandbox's and refuses
// other places.
func TestBwrapModesAndData(t *testing.T) {
	dir := workspace(t)
	base := []string{"bwrap", "--ro-bind", "/", "/", "--tmpfs", "/tmp"}
	bw := func(args ...string) result {
		t.Helper()
		return run(t, "/", append(append([]string{}, base...), args...)...)
	}
	expect(t, "--perms --tmpfs", bw("--perms", "01777", "--tmpfs", dir, "stat", "-c", "%a", dir).stdout, "1777")
	expect(t, "--tmpfs", bw("--tmpfs", dir, "stat", "-c", "%a", dir).stdout, "755")
	r := bw("--perms", "555", "--tmpfs", dir, "--remount-ro", dir, "sh", "-c", "stat -c %a \"$0\"; touch \"$0/x\" 2>&1", dir)
	if !strings.HasPrefix(r.stdout, "555\n") || !strings.Contains(r.stdout, "Read-only file system") {
		t.Errorf("Codex's read-only tmpfs: %v", r)
	}
	if out := bw("--size", "1048576", "--tmpfs", dir, "df", "--output=size", "--block-size=1K", dir).stdout; !strings.HasSuffix(out, " 1024") {
		t.Errorf("--size --tmpfs: df says %q, want 1024 blocks of 1K", out)
	}
	data := filepath.Join(dir, "data")
	writeFile(t, data, "hello")
	for _, c := range []struct {
		args       []string
		mode, last string
	}{
		{[]string{"--file"}, "666", "written"},
		{[]string{"--perms", "0640", "--file"}, "640", "written"},
		{[]string{"--bind-data"}, "600", "written"},
		{[]string{"--ro-bind-data"}, "600", "read-only"},
		{[]string{"--perms", "0440", "--ro-bind-data"}, "440", "read-only"},
	} {
		out := runShell(t, `"$0" bwrap --ro-bind / / --tmpfs /tmp `+strings.Join(c.args, " ")+` 5 /tmp/x/file sh -c 'stat -c %a /tmp/x/file; cat /tmp/x/file; echo; (echo more >>/tmp/x/file) 2>/dev/null && echo written || echo read-only' 5<"$1"`, nsrunBin, data)
		expect(t, strings.Join(c.args, " "), out, c.mode+"\nhello\n"+c.last)
	}
	out := runShell(t, `"$0" bwrap --ro-bind / / --file 5 /etc/x true 5<"$1"; echo "exit $?"`, nsrunBin, data)
	if !strings.Contains(out, "only in a writable tmpfs") || !strings.HasSuffix(out, "exit 1") {
		t.Errorf("--file outside a tmpfs: %q; want a refusal and exit 1", out)
	}
	expect(t, "host data", readFile(t, data), "hello")
}

// TestBwrapMakesInWritableHostTrees: in a host tree the sandbox shows
// writable, --dir, --symlink, --chmod and the mount points of binds are
// made on the host, as bubblewrap makes them through the bind: with its
// modes (a directory 0755 or --perms, its parents without the group's or
// others' bits that --perms lacks, a file mount point 0444); the same
// symlink again is no change, another is bubblewrap's error; nothing is
// made through a host symlink, nor in a tree shown read-only.
func TestBwrapMakesInWritableHostTrees(t *testing.T) {
	w := workspace(t)
	writeFile(t, filepath.Join(w, "src-file"), "data")
	if err := os.Mkdir(filepath.Join(w, "src-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	bw := func(args ...string) result {
		t.Helper()
		return run(t, "/", append([]string{"bwrap", "--ro-bind", "/", "/", "--bind", w, w}, args...)...)
	}
	j := func(p string) string { return filepath.Join(w, p) }
	r := bw("--perms", "1741", "--dir", j("a"), "--perms", "0750", "--dir", j("p/q/r"), "--dir", j("c"), "--chmod", "0711", j("c"),
		"--symlink", "/dev/null", j("link"), "--bind", j("src-dir"), j("mp-dir"), "--ro-bind", j("src-file"), j("mp-file"),
		"sh", "-c", "cat "+j("mp-file"))
	if r.code != 0 || r.stdout != "data" {
		t.Fatalf("%v", r)
	}
	for p, want := range map[string]fs.FileMode{"a": 0o1741 | fs.ModeSticky, "p": 0o750, "p/q": 0o750, "p/q/r": 0o750, "c": 0o711,
		"mp-dir": 0o755, "mp-file": 0o444} {
		fi, err := os.Lstat(j(p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		got := fi.Mode() & (fs.ModePerm | fs.ModeSticky)
		if got != want&(fs.ModePerm|fs.ModeSticky) {
			t.Errorf("%s: mode %v, want %v", p, got, want&(fs.ModePerm|fs.ModeSticky))
		}
	}
	if target, err := os.Readlink(j("link")); err != nil || target != "/dev/null" {
		t.Errorf("symlink: %q, %v", target, err)
	}
	if r := bw("--symlink", "/dev/null", j("link"), "true"); r.code != 0 {
		t.Errorf("the same symlink again: %v", r)
	}
	if r := bw("--symlink", "/dev/full", j("link"), "true"); r.code != 1 || !strings.Contains(r.stderr, "Can't make symlink at "+j("link")+": existing destination is /dev/null") {
		t.Errorf("another symlink: %v", r)
	}
	if err := os.Symlink(t.TempDir(), j("out")); err != nil {
		t.Fatal(err)
	}
	if r := bw("--dir", j("out/x"), "true"); r.code != 1 || !strings.Contains(r.stderr, "through a symlink") {
		t.Errorf("--dir through a host symlink: %v", r)
	}
	if r := run(t, "/", "bwrap", "--ro-bind", "/", "/", "--perms", "0700", "--dir", j("ro"), "true"); r.code != 1 {
		t.Errorf("--perms --dir in a read-only tree: %v", r)
	}
	if _, err := os.Lstat(j("ro")); err == nil {
		t.Error("made in a tree shown read-only")
	}
}
