//go:build linux

package integration

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	docker "github.com/moby/profiles/seccomp"
	"golang.org/x/sys/unix"
)

// landlockOnly are the options of a Landlock-only sandbox that can run the
// helper (which lives outside the system's directories) with extra ones.
func landlockOnly(extra ...string) []string {
	return append([]string{"--isolation", "landlock", "--ro", filepath.Dir(helperBin)}, extra...)
}

// hostSocket makes a listening pathname socket under dir, open to
// everyone, which a payload must not reach.
func hostSocket(t *testing.T, dir string) string {
	t.Helper()
	d, err := os.MkdirTemp(dir, "nsrun-host-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	sock := filepath.Join(d, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	os.Chmod(sock, 0o777)
	go acceptAndClose(ln)
	return sock
}

// acceptAndClose accepts connections on ln and closes them, until ln is
// closed.
func acceptAndClose(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// dockerProfile writes Docker's default seccomp profile into dir.
func dockerProfile(t *testing.T, dir string) string {
	t.Helper()
	b, err := json.Marshal(docker.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "docker-default.json")
	writeFile(t, profile, string(b))
	return profile
}

// Host pathname unix sockets (docker.sock, the ssh agent, D-Bus) are out
// of reach by any name; sockets the payload makes in its writable paths
// work, and so do its abstract ones.
func TestLandlockOnlyHostUnixSocketsUnreachable(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	places := []string{"/tmp", "/var/tmp", home}
	if os.Getuid() == 0 {
		places = append(places, "/run", "/var/run")
	} else {
		t.Log("/run and /var/run: only root can make a socket there; tried as root")
	}
	opts := landlockOnly("--rw", ws)
	for _, place := range places {
		sock := hostSocket(t, place)
		expect(t, "connect to "+sock, helper(t, opts, "dial-unix", sock), "EACCES")
		expect(t, "connect to "+sock+" through /proc/self/fd", helper(t, opts, "dial-unix-procfd", sock), "EACCES")
		link := filepath.Join(ws, "link-"+filepath.Base(filepath.Dir(sock)))
		if err := os.Symlink(sock, link); err != nil {
			t.Fatal(err)
		}
		expect(t, "connect through a symlink in the workspace to "+sock, helper(t, opts, "dial-unix", link), "EACCES")
	}
	// A host socket inside the workspace's read-only part is the host's.
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	inGit := hostSocket(t, filepath.Join(ws, ".git"))
	expect(t, "connect to a socket under --ro", helper(t, append(opts, "--ro", filepath.Join(ws, ".git")), "dial-unix", inGit), "EACCES")
	// The payload's own sockets: in the workspace, in its private
	// temporary directory, abstract.
	expect(t, "own socket in the workspace", helper(t, opts, "unix-listen-dial", filepath.Join(ws, "own.sock")), "ok")
	r := run(t, ws, append(opts, "--", "/bin/sh", "-c", helperBin+` unix-listen-dial "$TMPDIR/own.sock"`)...)
	expect(t, "own socket in the private temporary directory", r.stdout, "ok")
	expect(t, "own abstract socket", helper(t, opts, "abstract-listen-dial", "nsrun-own-"+itoa(os.Getpid())), "ok")
	// A datagram can be addressed to any socket path: datagram sockets
	// are refused.
	expect(t, "unix datagram socket", helper(t, opts, "unix-dgram"), "EACCES")
	// SOCK_RAW makes a datagram socket too, alone or as a pair: nothing
	// reaches a host datagram socket.
	dgDir, err := os.MkdirTemp("/var/tmp", "nsrun-host-dgram-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dgDir)
	dg := filepath.Join(dgDir, "s")
	host, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: dg, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	os.Chmod(dgDir, 0o755)
	os.Chmod(dg, 0o777)
	received := func() bool {
		_ = host.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, _, err := host.ReadFrom(make([]byte, 16))
		return err == nil
	}
	for _, how := range []string{"", "raw", "pair-raw"} {
		args := []string{dg}
		if how != "" {
			args = append(args, how)
		}
		expect(t, "a datagram to a host socket ("+how+")", helper(t, opts, "sendto-unix", args...), "EACCES")
		if received() {
			t.Errorf("the host socket received a datagram from the sandbox (%s)", how)
		}
		// The same reaches it where host unix sockets are allowed.
		expect(t, "a datagram with --allow-host-unix-sockets ("+how+")", helper(t, append(opts, "--allow-host-unix-sockets"), "sendto-unix", args...), "ok")
		if !received() {
			t.Errorf("with --allow-host-unix-sockets the datagram (%s) did not arrive: the refusal above proves nothing", how)
		}
	}
	// The explicit opt-out lets all of it through, and the report says so.
	rep := filepath.Join(ws, "r.json")
	r = run(t, ws, append(opts, "--allow-host-unix-sockets", "--report", rep, "--", "/bin/sh", "-c",
		helperBin+" unix-dgram; "+helperBin+" dial-unix "+hostSocket(t, "/var/tmp"))...)
	expect(t, "--allow-host-unix-sockets", r.stdout, "ok\nok")
	if got := readLLReport(t, rep); !strings.Contains(strings.Join(got.NotEnforced, "\n"), "--allow-host-unix-sockets") {
		t.Errorf("the report does not say host unix sockets are not enforced: %v", got.NotEnforced)
	}
	r = run(t, ws, "--allow-host-unix-sockets", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--allow-host-unix-sockets") {
		t.Errorf("--allow-host-unix-sockets without --isolation landlock: %v", r)
	}
}

type llReportJSON struct {
	Enforcement   string
	Compensations []string
	NotEnforced   []string `json:"not_enforced"`
	Filesystem    struct{ RW []string }
}

func readLLReport(t *testing.T, path string) llReportJSON {
	t.Helper()
	var r llReportJSON
	if err := json.Unmarshal([]byte(readFile(t, path)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// procField reads field n (1-based, after the command) of /proc/PID/stat.
func procField(t *testing.T, pid, n int) string {
	t.Helper()
	b := readFile(t, "/proc/"+itoa(pid)+"/stat")
	f := strings.Fields(b[strings.LastIndexByte(b, ')')+1:])
	return f[n-3]
}

func procLine(t *testing.T, path, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(readFile(t, path), "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("%s: no %s line", path, prefix)
	return ""
}

// prlimit, setpriority, sched_set* and ioprio_set on a host process of the
// same user are refused, and the process keeps its limits and priorities;
// the payload may still set its own.
func TestLandlockOnlyPidCallsStayInTheSandbox(t *testing.T) {
	hostABI(t)
	need(t)
	host := exec.Command("/bin/sleep", "300")
	host.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { host.Process.Kill(); host.Wait() }()
	pid := host.Process.Pid
	limits := procLine(t, "/proc/"+itoa(pid)+"/limits", "Max open files")
	nice, policy := procField(t, pid, 19), procField(t, pid, 41)
	cpus := procLine(t, "/proc/"+itoa(pid)+"/status", "Cpus_allowed_list")
	// A uid that has no process: on a kernel that let the call through,
	// it would find nothing (ESRCH) rather than renice the caller's.
	const nobodyUID = "65533"
	for _, tc := range []struct{ op, want string }{
		{"prlimit " + itoa(pid), "EPERM"},
		{"setpriority 0 " + itoa(pid) + " 10", "EPERM"},
		{"setpriority 1 " + itoa(pid) + " 10", "EPERM"}, // PRIO_PGRP of the host process's group
		{"setpriority 2 " + nobodyUID + " 10", "EPERM"}, // PRIO_USER
		{"setaffinity " + itoa(pid), "EPERM"},
		{"setscheduler " + itoa(pid), "EPERM"},
		{"ioprio 1 " + itoa(pid), "EPERM"},
		{"ioprio 2 " + itoa(pid), "EPERM"}, // IOPRIO_WHO_PGRP
		{"ioprio 3 " + nobodyUID, "EPERM"}, // IOPRIO_WHO_USER
		{"self-limits", "ok"},
	} {
		f := strings.Fields(tc.op)
		expect(t, tc.op, helper(t, landlockOnly(), f[0], f[1:]...), tc.want)
	}
	expect(t, "the host process's open-files limit", procLine(t, "/proc/"+itoa(pid)+"/limits", "Max open files"), limits)
	expect(t, "the host process's nice value", procField(t, pid, 19), nice)
	expect(t, "the host process's scheduling policy", procField(t, pid, 41), policy)
	expect(t, "the host process's CPUs", procLine(t, "/proc/"+itoa(pid)+"/status", "Cpus_allowed_list"), cpus)
	// Nor can the payload reach the stage that supervises it.
	r := run(t, "/", append(landlockOnly(), "--", "/bin/sh", "-c", helperBin+` prlimit $PPID; `+helperBin+` setpriority 0 $PPID 19`)...)
	expect(t, "limits of the supervisor", r.stdout, "EPERM\nEPERM")
}

// stragglers is a shell command that leaves two processes behind, then
// prints "ready": a double-forked setsid one (no longer a child, nor in
// the payload's session or group) and a plain child. Neither holds the
// payload's output open, so nsrun's exit does not wait for them.
func stragglers(marker string) string {
	quiet := " </dev/null >/dev/null 2>&1"
	return `(setsid /bin/bash -c 'exec -a ` + marker + `-setsid /bin/sleep 300'` + quiet + ` &) ; (exec -a ` + marker + `-child /bin/sleep 300)` + quiet + ` & ` +
		`for i in $(seq 100); do pgrep -f ` + marker + `-setsid >/dev/null && break; sleep 0.02; done; echo ready`
}

// Without a PID namespace, nothing of the sandbox outlives it: not when
// nsrun is killed, not when the payload exits, not at the timeout; a
// process that left the payload's session and group included.
func TestLandlockOnlyNothingSurvives(t *testing.T) {
	hostABI(t)
	if _, err := exec.LookPath("pgrep"); err != nil {
		t.Skip("pgrep is not installed")
	}
	marker := "nsrun-ll-" + itoa(os.Getpid())
	t.Run("nsrun killed", func(t *testing.T) {
		m := marker + "-k"
		cmd, stderr := startSettled(t, "--isolation", "landlock", "--", "/bin/bash", "-c", stragglers(m)+"; wait")
		cmd.Process.Kill()
		cmd.Wait()
		stderr()
		assertGone(t, m+"-setsid")
		assertGone(t, m+"-child")
	})
	t.Run("payload exits", func(t *testing.T) {
		m := marker + "-e"
		r := run(t, "/", "--isolation", "landlock", "--", "/bin/bash", "-c", stragglers(m)+"; exit 3")
		if r.code != 3 || r.stdout != "ready" {
			t.Fatalf("want exit 3 after ready: %v", r)
		}
		assertGone(t, m+"-setsid")
		assertGone(t, m+"-child")
	})
	t.Run("timeout", func(t *testing.T) {
		m := marker + "-t"
		r := run(t, "/", "--isolation", "landlock", "--timeout", "2s", "--", "/bin/bash", "-c", stragglers(m)+"; sleep 60")
		if r.code != 124 || r.stdout != "ready" {
			t.Fatalf("want exit 124 after ready: %v", r)
		}
		assertGone(t, m+"-setsid")
		assertGone(t, m+"-child")
	})
	t.Run("supervisor out of reach", func(t *testing.T) {
		if hostABI(t) < 6 {
			t.Skip("Landlock ABI < 6 does not scope signals")
		}
		r := run(t, "/", "--isolation", "landlock", "--", "/bin/sh", "-c", "kill -KILL $PPID; echo $?")
		if r.code != 0 || r.stdout != "1" {
			t.Errorf("the payload killed its supervisor: %v", r)
		}
	})
}

// A rule's parent directory swapped for a symlink to another directory
// while nsrun starts: the rule lands on the directory the report names, or
// nsrun refuses to start; never on the other one while the report names
// the intended path.
func TestLandlockOnlyRulePathSwapDuringStartup(t *testing.T) {
	hostABI(t)
	need(t)
	base := workspace(t)
	for _, d := range []string{"p/child", "victim/child"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, aside := filepath.Join(base, "p"), filepath.Join(base, "p.aside")
	victim := filepath.Join(base, "victim", "child")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			time.Sleep(200 * time.Microsecond)
			if os.Rename(p, aside) != nil {
				continue
			}
			os.Symlink(filepath.Join(base, "victim"), p)
			time.Sleep(200 * time.Microsecond)
			os.Remove(p)
			os.Rename(aside, p)
		}
	}()
	ran, refused, asReported, changed := 0, 0, 0, 0
	for i := range 150 {
		rep := filepath.Join(base, "r"+itoa(i)+".json")
		// The payload writes into the victim by its own name: that works
		// only if the rule for p/child landed on it.
		cmd := exec.Command(nsrunBin, append(landlockOnly("-q", "--rw", filepath.Join(p, "child"), "--report", rep), "--",
			helperBin, "write", filepath.Join(victim, "m"+itoa(i)))...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if strings.Contains(stderr.String(), "changed during start-up") {
			changed++
		}
		switch code := cmd.ProcessState.ExitCode(); {
		case err == nil:
			ran++
			if strings.TrimSpace(string(out)) != "ok" {
				break
			}
			// Only where nsrun resolved the user's path through the
			// symlink, and says so, may the victim be writable.
			if got := readLLReport(t, rep); !contains(got.Filesystem.RW, victim) {
				t.Errorf("launch %d: the payload wrote into %s while the report named %v", i, victim, got.Filesystem.RW)
			}
			asReported++
		case code == 125:
			refused++ // the path changed during start-up (or was missing when planned)
		default:
			t.Errorf("launch %d: %v %s", i, err, out)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("150 launches: %d ran (%d on the victim, as reported), %d refused (%d because a rule path changed during start-up)", ran, asReported, refused, changed)
	if ran == 0 {
		t.Error("no launch ran: the test proves nothing")
	}
}

// chmod, chown, utimes, setxattr, removexattr and chattr change nothing
// outside the writable paths (a denied key file, a host file, by path, by
// descriptor, by /proc/self/fd); inside, chmod +x and the rest work.
func TestLandlockOnlyMetadataOutsideWritablePaths(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	outside := filepath.Join("/var/tmp", filepath.Base(ws)+"-meta")
	if err := os.MkdirAll(filepath.Join(outside, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	key := filepath.Join(outside, ".ssh", "id_ed25519")
	host := filepath.Join(outside, "host.txt")
	writeFile(t, key, "secret")
	writeFile(t, host, "host")
	os.Chmod(key, 0o600)
	if err := unix.Setxattr(host, "user.keep", []byte("1"), 0); err != nil {
		t.Logf("no user xattrs on %s: %v", outside, err)
	}
	mine := filepath.Join(ws, "tool")
	writeFile(t, mine, "#!/bin/sh\necho tool-ran\n")
	opts := landlockOnly("--rw", ws, "--deny", filepath.Join(outside, ".ssh"))
	stat := func(p string) unix.Stat_t {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	keyBefore, hostBefore := stat(key), stat(host)
	gid := itoa(os.Getgid())
	for _, path := range []string{key, host} {
		for _, tc := range [][]string{
			{"chmod", path, "666"},
			{"fchmod", path, "666"},
			{"fchmod-opath", path, "666"},
			{"chmod-procfd", path, "666"},
			{"chown", path, "-1", gid},
			{"utimes", path},
			{"setxattr", path, "user.planted", "1"},
			{"removexattr", path, "user.keep"},
			{"chattr", path},
		} {
			got := helper(t, opts, tc[0], tc[1:]...)
			if got != "EPERM" && !(path == key && got == "EACCES") {
				t.Errorf("%s: got %s, want EPERM", strings.Join(tc, " "), got)
			}
		}
	}
	for _, c := range []struct {
		path   string
		before unix.Stat_t
	}{{key, keyBefore}, {host, hostBefore}} {
		after := stat(c.path)
		if after.Mode != c.before.Mode || after.Mtim != c.before.Mtim || after.Gid != c.before.Gid {
			t.Errorf("%s changed: mode %o -> %o, mtime %v -> %v", c.path, c.before.Mode, after.Mode, c.before.Mtim, after.Mtim)
		}
	}
	if n, err := unix.Getxattr(host, "user.planted", nil); err == nil || n > 0 {
		t.Error("an extended attribute was planted on the host file")
	}
	// Nor can a host file be brought into the workspace by a hard link,
	// where its metadata could be changed.
	if got := helper(t, opts, "link", host, filepath.Join(ws, "hl")); got != "EXDEV" && got != "EACCES" {
		t.Errorf("hard link of a host file into the workspace: %s", got)
	}
	// In the workspace, everything works.
	for _, tc := range [][]string{
		{"chmod", mine, "755"},
		{"utimes", mine},
		{"chown", mine, "-1", gid},
	} {
		expect(t, strings.Join(tc, " ")+" in the workspace", helper(t, opts, tc[0], tc[1:]...), "ok")
	}
	r := run(t, ws, append(opts, "--", "/bin/sh", "-c", "chmod -x ./tool && chmod +x ./tool && ./tool && touch -d 2001-01-01 ./tool")...)
	if r.code != 0 || r.stdout != "tool-ran" {
		t.Errorf("chmod +x and touch in the workspace: %v", r)
	}
	if st := stat(mine); st.Mode&0o111 == 0 || st.Mtim.Sec > 1e9+1e8 {
		t.Errorf("the workspace file: mode %o, mtime %d", st.Mode, st.Mtim.Sec)
	}
}

// --rw WS --ro WS/.git --deny HOME/.ssh: the workspace can be listed,
// read and written, files and directories made in it (by the supervisor,
// where Landlock cannot allow it), git status works, and one warning says
// where Landlock cannot express the layout.
func TestLandlockOnlyWorkspaceWithReadOnlyGit(t *testing.T) {
	hostABI(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := workspace(t)
	secrets := filepath.Join("/var/tmp", filepath.Base(ws)+"-ssh")
	writeFile(t, filepath.Join(secrets, "id"), "key")
	defer os.RemoveAll(secrets)
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n\nfunc main() {}\n")
	writeFile(t, filepath.Join(ws, "sub", "x.txt"), "x")
	writeFile(t, filepath.Join(ws, ".env"), "TOKEN=1")
	git := exec.Command("git", "init", "-q", ws)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	opts := landlockOnly("--rw", ws, "--ro", filepath.Join(ws, ".git"), "--deny", secrets, "--deny", filepath.Join(ws, ".env"))
	r := run(t, ws, append(opts, "--", "/bin/ls", "-a")...)
	if r.code != 0 || !strings.Contains(r.stdout, "main.go") || !strings.Contains(r.stdout, ".git") {
		t.Fatalf("ls of the workspace: %v", r)
	}
	if !strings.Contains(r.stderr, ws+" (which holds "+filepath.Join(ws, ".env")+", "+filepath.Join(ws, ".git")+"), nsrun's supervisor creates") ||
		!strings.Contains(r.stderr, "the names in "+secrets+" can be listed") || strings.Count(r.stderr, "warning: --isolation landlock") != 1 {
		t.Errorf("want one warning naming the workspace and its holes, and the denied directory: %q", r.stderr)
	}
	env := []string{"HOME=" + ws, "GIT_CONFIG_NOSYSTEM=1"}
	r = runEnv(t, ws, env, append(opts, "-q", "--", "git", "-c", "safe.directory=*", "status", "--short")...)
	if r.code != 0 || !strings.Contains(r.stdout, "main.go") {
		t.Errorf("git status: %v", r)
	}
	for _, tc := range []struct {
		op, path, want string
	}{
		{"read", filepath.Join(ws, "main.go"), `"package main\n\nfunc main() {}\n"`},
		{"append", filepath.Join(ws, "sub", "x.txt"), "ok"},
		{"append", filepath.Join(ws, "main.go"), "ok"},
		{"write", filepath.Join(ws, "sub", "new.txt"), "ok"},
		{"mkdir", filepath.Join(ws, "sub", "newdir"), "ok"},
		{"write", filepath.Join(ws, "new-in-ws.txt"), "ok"},
		{"append", filepath.Join(ws, "new-in-ws.txt"), "ok"},
		{"mkdir", filepath.Join(ws, "newdir"), "ok"},
		{"write", filepath.Join(ws, "newdir", "f"), "ok"},
		{"write", filepath.Join(ws, ".env"), "EACCES"},
		{"write", filepath.Join(ws, ".git", "config"), "EACCES"},
		{"write", filepath.Join(ws, ".git", "hooks", "pre-commit"), "EACCES"},
		{"read", filepath.Join(ws, ".env"), "EACCES"},
		{"read", filepath.Join(secrets, "id"), "EACCES"},
		{"rename", filepath.Join(ws, ".git"), "EACCES"},
	} {
		args := []string{tc.path}
		if tc.op == "rename" {
			args = append(args, filepath.Join(ws, "sub", "git-moved"))
		}
		got := helper(t, append(opts, "-q"), tc.op, args...)
		if got != tc.want && !(tc.op == "rename" && got == "EXDEV") {
			t.Errorf("%s %s: got %s, want %s", tc.op, tc.path, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "HEAD")); err != nil {
		t.Errorf(".git was moved: %v", err)
	}
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n\nfunc main() {}\n")
	writeFile(t, filepath.Join(ws, "sub", "hello.c"), "int main(void){return 0;}\n")
	if _, err := exec.LookPath("gcc"); err == nil {
		r = run(t, ws, append(opts, "-q", "--", "/bin/sh", "-c", "gcc -o sub/hello sub/hello.c && ./sub/hello && echo built")...)
		expect(t, "gcc", r.stdout, "built")
	}
	// go build, with the caller's build cache where it is already filled
	// (a cold one takes the whole standard library to fill).
	goBin, err := exec.LookPath("go")
	if err != nil {
		return
	}
	out, err := exec.Command(goBin, "env", "GOCACHE").Output()
	cache := strings.TrimSpace(string(out))
	if _, serr := os.Stat(filepath.Join(cache, "README")); err != nil || serr != nil {
		t.Logf("go build not tried: no filled build cache (%v %v)", err, serr)
		return
	}
	writeFile(t, filepath.Join(ws, "go.mod"), "module example.com/ws\n\ngo 1.21\n")
	r = runEnv(t, ws, env, append(opts, "-q", "--rw", cache, "--", "/bin/sh", "-c",
		`GOCACHE=`+cache+` GOPATH="$TMPDIR/gopath" GOTOOLCHAIN=local GOFLAGS=-buildvcs=false `+goBin+` build -o sub/ws && ./sub/ws && echo built`)...)
	if r.stdout != "built" {
		t.Errorf("go build: %v", r)
	}
}

// A command the mode's exec rule keeps from running says which file, why
// and which option would let it run.
func TestLandlockOnlyExecErrorNamesTheFix(t *testing.T) {
	hostABI(t)
	home := filepath.Join("/var/tmp", "nsrun-home-"+itoa(os.Getpid()))
	defer os.RemoveAll(home)
	tool := filepath.Join(home, ".cargo", "bin", "tool")
	writeFile(t, tool, "#!/bin/sh\necho ran\n")
	os.Chmod(tool, 0o755)
	os.Chmod(home, 0o755)
	r := runEnv(t, "/", []string{"HOME=" + home}, "--isolation", "landlock", "--", tool)
	if r.code != 126 || !strings.Contains(r.stderr, tool) || !strings.Contains(r.stderr, "not executable in --isolation landlock") ||
		!strings.Contains(r.stderr, "--ro "+filepath.Join(home, ".cargo")) {
		t.Errorf("want 126 naming %s and --ro %s: %v", tool, filepath.Join(home, ".cargo"), r)
	}
	r = runEnv(t, "/", []string{"HOME=" + home}, "--isolation", "landlock", "--ro", filepath.Join(home, ".cargo"), "--", tool)
	expect(t, "with the advised option", r.stdout, "ran")
	// A script that may run, whose interpreter may not.
	ws := workspace(t)
	script := filepath.Join(ws, "script")
	writeFile(t, script, "#!"+tool+"\n")
	os.Chmod(script, 0o755)
	r = runEnv(t, "/", []string{"HOME=" + home}, "--isolation", "landlock", "--rw", ws, "--", script)
	if r.code != 126 || !strings.Contains(r.stderr, "its interpreter "+tool) {
		t.Errorf("want 126 naming the interpreter: %v", r)
	}
}

// The report lists what stands in for what Landlock lacks, and what is
// left open; nsrun probe says what the mode can enforce here.
func TestLandlockOnlyReportAndProbe(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--isolation", "landlock", "--rw", ws, "--report", rep, "--", "/bin/true")
	if r.code != 0 {
		t.Fatal(r)
	}
	got := readLLReport(t, rep)
	comp, gaps := strings.Join(got.Compensations, "\n"), strings.Join(got.NotEnforced, "\n")
	for _, want := range []string{"unix sockets", "chmod", "prlimit64", "subreaper", "datagram"} {
		if !strings.Contains(comp, want) {
			t.Errorf("compensations do not mention %s: %q", want, got.Compensations)
		}
	}
	for _, want := range []string{"mmap(PROT_EXEC)", "stat", "namespaces"} {
		if !strings.Contains(gaps, want) {
			t.Errorf("not_enforced does not mention %s: %q", want, got.NotEnforced)
		}
	}
	if got.Enforcement != "partial" {
		t.Errorf("enforcement %s", got.Enforcement)
	}
	out, err := exec.Command(nsrunBin, "probe").CombinedOutput()
	if !strings.Contains(string(out), "landlock only") || !strings.Contains(string(out), "supervisor") {
		t.Errorf("probe: %v\n%s", err, out)
	}
	out, _ = exec.Command(nsrunBin, "probe", "--json").Output()
	var p struct {
		LandlockOnly struct {
			OK            bool
			Compensations []string
			NotEnforced   []string `json:"not_enforced"`
		} `json:"landlock_only"`
	}
	if err := json.Unmarshal(out, &p); err != nil || !p.LandlockOnly.OK || len(p.LandlockOnly.Compensations) == 0 || len(p.LandlockOnly.NotEnforced) == 0 {
		t.Errorf("probe --json: %v %+v", err, p.LandlockOnly)
	}
}

// Without a terminal, no terminal of the host can be opened: /dev/pts
// gets no rights.
func TestLandlockOnlyNoTerminalsWithoutOne(t *testing.T) {
	hostABI(t)
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := "/dev/pts/" + strconv.Itoa(n)
	expect(t, "open another terminal", helper(t, landlockOnly(), "open-rw", pts), "EACCES")
	// The same terminal outside: the test could open it.
	if f, err := os.OpenFile(pts, os.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		t.Errorf("the pty is not usable outside either: %v", err)
	} else {
		f.Close()
	}
}

// Inside a container whose seccomp profile refuses pidfd_getfd (Docker's
// and Kubernetes' default, without CAP_SYS_PTRACE), the supervisor cannot
// take the payload's sockets to check their connects: unix sockets other
// than socketpairs are refused instead, and the report says why; metadata
// changes are still checked. The container is a sandbox with Docker's
// profile.
func TestLandlockOnlyUnderADockerProfile(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	profile := dockerProfile(t, ws)
	inner := filepath.Join(ws, "inner")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(inner, "f"), "x")
	host := hostSocket(t, "/var/tmp")
	script := strings.Join([]string{
		helperBin + " unix-listen-dial " + filepath.Join(inner, "own.sock"),
		helperBin + " dial-unix " + host,
		helperBin + " chmod " + filepath.Join(inner, "f") + " 600",
		helperBin + " chmod " + profile + " 666",
	}, "; ")
	rep := filepath.Join(inner, "r.json")
	r := run(t, ws, "--seccomp", profile, "--ro", filepath.Dir(helperBin), "--ro", filepath.Dir(nsrunBin), "--rw", ws, "--",
		nsrunBin, "-q", "--isolation", "landlock", "--ro", filepath.Dir(helperBin), "--rw", inner, "--report", rep, "--", "/bin/sh", "-c", script)
	expect(t, "own socket, host socket, chmod inside, chmod outside", r.stdout, "EACCES\nEACCES\nok\nEPERM")
	if got := readLLReport(t, rep); !strings.Contains(strings.Join(got.Compensations, "\n"), "pidfd_getfd") {
		t.Errorf("the report does not say why unix sockets are refused: %v", got.Compensations)
	}
}

// --allow-bind needs listen() checked, by taking the payload's socket:
// where a container's profile refuses pidfd_getfd, the Landlock-only mode
// refuses to start rather than let listen() on a socket never bound take
// any port.
func TestLandlockOnlyAllowBindUnderADockerProfile(t *testing.T) {
	if hostABI(t) < 4 {
		t.Skip("Landlock ABI < 4 has no TCP rules")
	}
	ws := workspace(t)
	profile := dockerProfile(t, ws)
	r := run(t, ws, "--seccomp", profile, "--ro", filepath.Dir(nsrunBin), "--rw", ws, "--",
		nsrunBin, "-q", "--isolation", "landlock", "--net", "host", "--allow-bind", "40000", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--allow-bind") || !strings.Contains(r.stderr, "pidfd_getfd") {
		t.Errorf("--allow-bind without pidfd_getfd: %v", r)
	}
}

// The layout of git's own protections (config and hooks read-only, the
// rest of .git writable): git commits, while config and hooks cannot be
// replaced by any path — removed, renamed over, linked elsewhere, or
// created through a symlink swapped in while the supervisor works.
func TestLandlockOnlyGitCommitWithProtectedHooks(t *testing.T) {
	hostABI(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "file.txt"), "content\n")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	git := filepath.Join(ws, ".git")
	opts := landlockOnly("-q", "--rw", ws, "--ro", filepath.Join(git, "config"), "--ro", filepath.Join(git, "hooks"))
	env := []string{"HOME=" + ws, "GIT_CONFIG_NOSYSTEM=1"}
	r := runEnv(t, ws, env, append(opts, "--", "/bin/sh", "-c",
		"git add file.txt && git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s")...)
	expect(t, "git commit", r.stdout, "first")
	// A program built into the workspace itself runs.
	if _, err := exec.LookPath("gcc"); err == nil {
		writeFile(t, filepath.Join(ws, "hello.c"), "int main(void){return 0;}\n")
		r = run(t, ws, append(opts, "--", "/bin/sh", "-c", "gcc -o hello hello.c && ./hello && echo built")...)
		expect(t, "gcc into the workspace", r.stdout, "built")
	}
	config := readFile(t, filepath.Join(git, "config"))
	for _, tc := range []struct {
		op   string
		args []string
	}{
		{"remove", []string{filepath.Join(git, "config")}},
		{"rename", []string{filepath.Join(ws, "file.txt"), filepath.Join(git, "config")}},
		{"rename", []string{filepath.Join(git, "hooks"), filepath.Join(git, "hooks.old")}},
		{"rename", []string{git, filepath.Join(ws, "git.old")}},
		{"write", []string{filepath.Join(git, "config")}},
		{"write", []string{filepath.Join(git, "hooks", "pre-commit")}},
		{"link", []string{filepath.Join(git, "config"), filepath.Join(ws, "config-alias")}},
		{"symlink", []string{filepath.Join(ws, "x"), filepath.Join(git, "hooks", "pre-commit")}},
		{"rmdir", []string{filepath.Join(git, "hooks")}},
	} {
		got := helper(t, opts, tc.op, tc.args...)
		if got == "ok" {
			t.Errorf("%s %v: it worked", tc.op, tc.args)
		}
	}
	if got := readFile(t, filepath.Join(git, "config")); got != config {
		t.Errorf(".git/config changed:\n%s", got)
	}
	for _, p := range []string{filepath.Join(git, "hooks", "pre-commit"), filepath.Join(ws, "config-alias"), filepath.Join(ws, "git.old")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
	// A directory of the workspace swapped for a symlink to the hooks while
	// files are created in it: never one in the hooks.
	got := helper(t, opts, "race-create", filepath.Join(ws, "d"), filepath.Join(git, "hooks"), "1000")
	if n, err := strconv.Atoi(got); err != nil || n == 0 {
		t.Errorf("race-create: %s (no file created at all proves nothing)", got)
	}
	if _, err := os.Lstat(filepath.Join(git, "hooks", "planted")); err == nil {
		t.Error("a file was planted in .git/hooks")
	}
}

// Of the host's /dev only a few devices can be opened: not /dev/shm, where
// other programs keep POSIX shared memory and semaphores, neither to list
// it, nor to read a file there, nor to make one (shm_open fails). read_dir
// on / would reach it, so / cannot be listed either; its entries can.
func TestLandlockOnlyHidesTheHostsDevShm(t *testing.T) {
	hostABI(t)
	host, err := os.CreateTemp("/dev/shm", "nsrun-shm-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	defer os.Remove(host.Name())
	host.WriteString("host")
	host.Close()
	for _, tc := range []struct {
		op, path, want string
	}{
		{"ls", "/dev/shm", "EACCES"},
		{"read", host.Name(), "EACCES"},
		{"write", "/dev/shm/nsrun-new-" + itoa(os.Getpid()), "EACCES"},
		{"ls", "/dev", "EACCES"},
		{"ls", "/dev/pts", "EACCES"},
		{"ls", "/", "EACCES"},
		{"read", "/dev/null", `""`},
		{"read", "/proc/self/comm", `"helper\n"`},
	} {
		expect(t, tc.op+" "+tc.path, helper(t, landlockOnly(), tc.op, tc.path), tc.want)
	}
	if got := helper(t, landlockOnly(), "ls", "/usr"); !strings.Contains(" "+got+" ", " bin ") {
		t.Errorf("ls /usr: %q", got)
	}
	if got := helper(t, landlockOnly(), "ls", "/proc/self/fd"); got == "" || strings.HasPrefix(got, "E") {
		t.Errorf("ls /proc/self/fd: %q", got)
	}
	if _, err := os.Stat("/dev/shm/nsrun-new-" + itoa(os.Getpid())); !os.IsNotExist(err) {
		t.Errorf("the payload made a file in the host's /dev/shm: %v", err)
	}
}

// startTmpWriter starts a Landlock-only sandbox whose payload writes into
// its TMPDIR, prints the TMPDIR and sleeps as name; env is nsrun's.
func startTmpWriter(t *testing.T, env []string, name string) (*exec.Cmd, string) {
	t.Helper()
	need(t)
	cmd := exec.Command(nsrunBin, "-q", "--isolation", "landlock", "--", "/bin/bash", "-c",
		`echo kept > "$TMPDIR/f" && echo "$TMPDIR" && exec -a `+name+` /bin/sleep 300`)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s: the payload printed no TMPDIR", name)
	}
	return cmd, strings.TrimSpace(line)
}

// nsrun killed (SIGKILL) cannot remove the private temporary directory:
// the payload dies with it, and the next run removes the directory and
// all nsrun made for it; a sandbox still running keeps its own.
func TestLandlockOnlyTmpdirOfAKilledRunIsRemovedNextTime(t *testing.T) {
	hostABI(t)
	parent := workspace(t) // nsrun's own TMPDIR: this test's runs alone use it
	env := []string{"TMPDIR=" + parent}
	marker := "nsrun-ll-tmp-" + itoa(os.Getpid())
	running, runningTmp := startTmpWriter(t, env, marker+"-running")
	defer func() { running.Process.Kill(); running.Wait() }()
	killed, killedTmp := startTmpWriter(t, env, marker+"-killed")
	killed.Process.Kill()
	killed.Wait()
	assertGone(t, marker+"-killed")
	if got, err := os.ReadFile(filepath.Join(killedTmp, "f")); err != nil || string(got) != "kept\n" {
		t.Fatalf("the killed run's TMPDIR %s: %q, %v; want its file, which only the next run removes", killedTmp, got, err)
	}
	r := runEnv(t, "/", env, "-q", "--isolation", "landlock", "--", "/bin/sh", "-c", `echo x > "$TMPDIR/g"`)
	if r.code != 0 {
		t.Fatalf("the next run: %v", r)
	}
	if _, err := os.Lstat(killedTmp); !os.IsNotExist(err) {
		t.Errorf("the killed run's TMPDIR %s is still there after the next run: %v", killedTmp, err)
	}
	if got, err := os.ReadFile(filepath.Join(runningTmp, "f")); err != nil || string(got) != "kept\n" {
		t.Errorf("the running sandbox's TMPDIR %s lost its file: %q, %v", runningTmp, got, err)
	}
	if findProcess(marker+"-running", 0) == 0 {
		t.Errorf("the running sandbox ended")
	}
	// Nothing else is left of the two runs that ended.
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), filepath.Base(runningTmp)) {
			t.Errorf("left in nsrun's TMPDIR: %s", e.Name())
		}
	}
}

// With --pids the payload is in the sandbox's cgroup: on cgroup v1 nsrun
// moves the stage in after it started, and the stage forks the payload
// only after that (it forked it before, racing the move, and some runs
// were not limited). Every run of several, since a run that loses the
// race is a matter of scheduling.
func TestLandlockOnlyPayloadIsInItsCgroup(t *testing.T) {
	hostABI(t)
	for i := 0; i < 20; i++ {
		r := run(t, "/", "-q", "--isolation", "landlock", "--pids", "64", "--", "/bin/cat", "/proc/self/cgroup")
		if r.code == 125 && i == 0 {
			t.Skipf("no cgroup limits here: %s", r.stderr)
		}
		if r.code != 0 || !strings.Contains(r.stdout, "/nsrun-") {
			t.Fatalf("run %d: the payload is not in the sandbox's cgroup: %v", i, r)
		}
	}
}
