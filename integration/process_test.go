//go:build linux

package integration

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExitStatuses(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "noexec"), "#!/bin/sh\necho hi\n")
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"zero", []string{"/bin/true"}, 0},
		{"own status", []string{"/bin/sh", "-c", "exit 3"}, 3},
		{"signal", []string{"/bin/sh", "-c", "kill -TERM $$"}, 128 + 15},
		{"sigkill", []string{"/bin/sh", "-c", "kill -KILL $$"}, 128 + 9},
		{"not found", []string{"no-such-command-nsrun"}, 127},
		{"not found by path", []string{"/no/such/file"}, 127},
		{"not executable", []string{filepath.Join(ws, "noexec")}, 126},
		{"a directory", []string{"/usr"}, 126},
		{"timeout", []string{"--timeout", "300ms", "--", "/bin/sleep", "30"}, 124},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] != "--timeout" {
				args = append([]string{"--rw", ws, "--"}, args...)
			}
			start := time.Now()
			r := run(t, ws, args...)
			if r.code != tc.want {
				t.Errorf("got %v, want exit %d", r, tc.want)
			}
			if tc.want == 124 && time.Since(start) > 20*time.Second {
				t.Errorf("timeout took %v", time.Since(start))
			}
		})
	}
}

func TestCommandNamedLikeAnOptionIsExecuted(t *testing.T) {
	ws := workspace(t)
	script := filepath.Join(ws, "--help")
	writeFile(t, script, "#!/bin/sh\necho ran-as-command\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, ws, "--rw", ws, "--chdir", ws, "--env", "PATH="+ws+":/usr/bin:/bin", "--", "--help")
	expect(t, "stdout", r.stdout, "ran-as-command")
	// Options after the command belong to the command.
	r = run(t, ws, "--", "/bin/echo", "--rw", "x")
	expect(t, "stdout", r.stdout, "--rw x")
}

func TestCapabilitiesEmptyAndNoNewPrivs(t *testing.T) {
	r := run(t, "/", "--", "/bin/cat", "/proc/self/status")
	if r.code != 0 {
		t.Fatal(r)
	}
	want := map[string]string{
		"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
		"CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1",
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		if w, ok := want[k]; ok {
			expect(t, k, strings.TrimSpace(v), w)
			delete(want, k)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing from /proc/self/status: %v", want)
	}
	// Even as uid 0 inside, nothing privileged works.
	for _, tc := range []struct{ op, arg, want string }{
		{"mount", "/tmp", "EPERM"},
		{"remount-rw", "/", "EPERM"},
		{"chroot", "", "EPERM"},
		{"mknod", "/tmp/null", "EPERM"},
	} {
		expect(t, tc.op+" as uid 0", helper(t, []string{"--uid", "0", "--gid", "0"}, tc.op, tc.arg), tc.want)
	}
}

func TestIdsAndHostname(t *testing.T) {
	got := helper(t, []string{"--uid", "1234", "--gid", "99"}, "ids")
	// The payload's parent is the init, pid 1.
	expect(t, "uid gid ppid", got, "1234 99 1")
	r := run(t, "/", "--hostname", "box", "--", "/bin/cat", "/proc/sys/kernel/hostname")
	expect(t, "hostname", r.stdout, "box")
	host, _ := os.Hostname()
	if host == "box" {
		t.Fatal("the host's name changed")
	}
	r = run(t, "/", "--", "/bin/sh", "-c", "id -u; id -g")
	expect(t, "default ids", r.stdout, itoa(os.Getuid())+"\n"+itoa(os.Getgid()))
}

func TestEnvironment(t *testing.T) {
	env := []string{"NSRUN_SECRET=hunter2", "NSRUN_KEEP=kept"}
	r := runEnv(t, "/", env, "--unset-env", "NSRUN_SECRET", "--env", "NSRUN_SET=a=b", "--",
		"/bin/sh", "-c", `echo "$NSRUN_KEEP|$NSRUN_SET|${NSRUN_SECRET-unset}"; tr -d '\0' </proc/1/cmdline; echo; `+
			`if e=$(cat /proc/1/environ 2>/dev/null); then echo "environ:$e"; else echo environ-unreadable; fi`)
	lines := strings.Split(r.stdout, "\n")
	if len(lines) != 3 {
		t.Fatalf("got %v", r)
	}
	expect(t, "payload env", lines[0], "kept|a=b|unset")
	expect(t, "init cmdline", lines[1], "nsrun-init")
	// The init is not dumpable, so its environment is not even readable;
	// were it readable, it would be empty.
	if lines[2] != "environ-unreadable" && lines[2] != "environ:" {
		t.Errorf("init environ: %q", lines[2])
	}
	r = runEnv(t, "/", env, "--clear-env", "--env", "ONLY=1", "--", "/usr/bin/env")
	expect(t, "cleared env", r.stdout, "ONLY=1\nNSRUN_SANDBOX=full\nPWD=/")
}

// PWD names the payload's working directory, not the caller's, whatever
// the environment edits say (as in bubblewrap): a shell or make trusts it.
func TestPWDIsThePayloadsWorkingDirectory(t *testing.T) {
	ws := workspace(t)
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		args []string
		want string
	}{
		{ws, []string{"--clear-env"}, ws},
		{ws, []string{"--chdir", sub}, sub},
		{ws, []string{"--unset-env", "PWD", "--chdir", sub}, sub},
		{ws, []string{"--env", "PWD=/elsewhere", "--chdir", sub}, sub},
		{ws, []string{"--isolation", "landlock", "--clear-env", "--chdir", sub}, sub},
		{"/", []string{"--clear-env"}, "/"},
	} {
		args := append(append([]string{"--rw", ws}, c.args...), "--", "/usr/bin/printenv", "PWD")
		r := runEnv(t, c.dir, []string{"PWD=/the/callers"}, args...)
		if r.code != 0 || r.stdout != c.want {
			t.Errorf("%v: %v, want PWD %s", c.args, r, c.want)
		}
	}
}

func TestWorkingDirectory(t *testing.T) {
	ws := workspace(t)
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, sub, "--rw", ws, "--", "/bin/pwd")
	expect(t, "cwd visible inside", r.stdout, sub)
	r = run(t, "/", "--rw", ws, "--chdir", sub, "--", "/bin/pwd")
	expect(t, "--chdir", r.stdout, sub)
	// The host's /tmp is not visible: start in the first writable dir.
	other := workspace(t)
	r = run(t, other, "--rw", ws, "--", "/bin/pwd")
	expect(t, "cwd hidden", r.stdout, ws)
}

func TestStragglersKilledWhenPayloadExits(t *testing.T) {
	marker := "nsrun-straggler-" + itoa(os.Getpid())
	r := run(t, "/", "--", "/bin/bash", "-c", "(exec -a "+marker+" sleep 300) & sleep 0.2; tr '\\0' ' ' </proc/$!/cmdline; exit 0")
	if r.code != 0 || r.stdout != marker+" 300" {
		t.Fatalf("the straggler did not start: %v", r)
	}
	assertGone(t, marker)
}

func TestSigtermIsForwarded(t *testing.T) {
	cmd := startReady(t, "--", "/bin/sh", "-c", `trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := cmd.Out.ReadString('\n')
	err := cmd.Wait()
	expect(t, "payload output", rest, "got-term\n")
	if cmd.ProcessState.ExitCode() != 7 {
		t.Errorf("exit: %v", err)
	}
}

// findProcess returns the host pid of a process whose argv[0] is name and,
// unless parent is 0, whose parent is parent; or 0.
func findProcess(name string, parent int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if arg0, _, _ := strings.Cut(string(b), "\x00"); err != nil || arg0 != name {
			continue
		}
		if parent == 0 {
			return pid
		}
		// pid (comm) state ppid ...
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); err == nil && len(f) >= 2 && f[1] == itoa(parent) {
			return pid
		}
	}
	return 0
}

// assertGone waits up to five seconds for every process named name to end.
func assertGone(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if findProcess(name, 0) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %s still running on the host (pid %d)", name, findProcess(name, 0))
}

func TestOnlyStandardDescriptorsReachThePayload(t *testing.T) {
	need(t)
	// A descriptor the caller leaked without close-on-exec must not reach
	// the payload either.
	leak, err := os.Open("/etc/hostname")
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	cmd := exec.Command(nsrunBin, "--", "/bin/sh", "-c", "ls /proc/$$/fd")
	// Fds 3 and 4 of nsrun are replaced in the init by its own pipes; the
	// higher ones would be inherited if nothing closed them.
	cmd.ExtraFiles = []*os.File{leak, leak, leak, leak, leak, leak, leak, leak}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "open descriptors", strings.Join(strings.Fields(string(out)), " "), "0 1 2")
}

func TestNamespacesAreNew(t *testing.T) {
	host := strings.Fields(func() string {
		var out []string
		for _, n := range []string{"user", "mnt", "pid", "ipc", "uts", "cgroup", "net"} {
			l, err := os.Readlink("/proc/self/ns/" + n)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, l)
		}
		return strings.Join(out, " ")
	}())
	for _, net := range []string{"none", "host"} {
		inside := strings.Fields(helper(t, []string{"--net", net}, "ns"))
		if len(inside) != len(host) {
			t.Fatalf("got %v", inside)
		}
		for i := range host {
			shared := inside[i] == host[i]
			if wantShared := net == "host" && strings.HasPrefix(host[i], "net:"); shared != wantShared {
				t.Errorf("--net %s: %s inside, %s on the host", net, inside[i], host[i])
			}
		}
	}
}
