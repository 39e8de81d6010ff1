//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sessionEnv gives a test a runtime directory of its own, where its
// sessions' sockets go.
type sessionEnv struct {
	t       *testing.T
	runtime string // XDG_RUNTIME_DIR
	dir     string // the sessions directory in it
	env     []string
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	need(t)
	rt := t.TempDir() // 0700, the test user's
	return &sessionEnv{t: t, runtime: rt, dir: filepath.Join(rt, "nsrun", "sessions"), env: []string{"XDG_RUNTIME_DIR=" + rt}}
}

func (e *sessionEnv) nsrun(args ...string) result {
	e.t.Helper()
	return runEnv(e.t, "/", e.env, args...)
}

// start starts a session and arranges for it to be stopped.
func (e *sessionEnv) start(name string, opts ...string) {
	e.t.Helper()
	r := e.nsrun(append(append([]string{"session", "start"}, opts...), name)...)
	if r.code != 0 || r.stdout != name {
		e.t.Fatalf("session start %s: %v", name, r)
	}
	e.t.Cleanup(func() { e.nsrun("session", "stop", name) })
}

func (e *sessionEnv) exec(name string, args ...string) result {
	e.t.Helper()
	return e.nsrun(append([]string{"exec", name, "--"}, args...)...)
}

// info is the session's description as its holder wrote it.
func (e *sessionEnv) info(name string) (holder, init int) {
	e.t.Helper()
	var i struct {
		Holder int `json:"holder_pid"`
		Init   int `json:"init_pid"`
	}
	b, err := os.ReadFile(filepath.Join(e.dir, name+".json"))
	if err != nil {
		e.t.Fatal(err)
	}
	if err := json.Unmarshal(b, &i); err != nil {
		e.t.Fatal(err)
	}
	if i.Holder == 0 || i.Init == 0 {
		e.t.Fatalf("session %s: holder %d, init %d", name, i.Holder, i.Init)
	}
	return i.Holder, i.Init
}

// nsProcs are the processes in the PID namespace named link.
func nsProcs(link string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && l == link {
			out = append(out, e.Name())
		}
	}
	return out
}

// holdPIDNamespace names pid's PID namespace as nsProcs compares it, and
// holds it open until the test ends: once the namespace is gone the
// kernel gives its inode number to the next new one (another test's
// sandbox), whose processes would then pass for the session's.
func holdPIDNamespace(t *testing.T, pid int) string {
	t.Helper()
	p := "/proc/" + itoa(pid) + "/ns/pid"
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	link, err := os.Readlink(p)
	if err != nil {
		t.Fatal(err)
	}
	return link
}

// gone waits for cond, a few seconds at most.
func gone(cond func() bool) bool {
	for range 300 {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// Commands of one session share its /tmp and its processes: a file one
// writes the next reads, a server one starts in the background the next
// reaches; each exits with its own status and runs as a child of the
// session's init.
func TestSessionSharesState(t *testing.T) {
	e := newSessionEnv(t)
	e.start("shared")
	if r := e.exec("shared", "/bin/sh", "-c", "echo kept > /tmp/state"); r.code != 0 {
		t.Fatal(r)
	}
	expect(t, "a file in /tmp, read by the next command", e.exec("shared", "/bin/cat", "/tmp/state").stdout, "kept")
	if r := e.exec("shared", "/bin/sh", "-c", helperBin+" serve 18080 >/dev/null 2>&1 &"); r.code != 0 {
		t.Fatal(r)
	}
	var got string
	for range 100 {
		if got = e.exec("shared", helperBin, "raw", "127.0.0.1:18080", `GET / HTTP/1.0\r\n\r\n`).stdout; got == "hello from inside" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	expect(t, "a server started by an earlier command", got, "hello from inside")
	expect(t, "exit status", itoa(e.exec("shared", "/bin/sh", "-c", "exit 9").code), "9")
	expect(t, "a command's parent inside", e.exec("shared", "/bin/sh", "-c", "echo $PPID").stdout, "1")
	expect(t, "a missing command", itoa(e.exec("shared", "/no/such").code), "127")
	expect(t, "--env", e.nsrun("exec", "shared", "--env", "NSRUN_X=y", "--", "/bin/sh", "-c", "echo $NSRUN_X").stdout, "y")
	expect(t, "--chdir", e.nsrun("exec", "shared", "--chdir", "/etc", "--", "/bin/pwd").stdout, "/etc")
	// Stdin reaches the command.
	cmd := exec.Command(nsrunBin, "exec", "shared", "--", "/bin/cat")
	cmd.Env = append(os.Environ(), e.env...)
	cmd.Stdin = strings.NewReader("through stdin")
	out, err := cmd.Output()
	if err != nil || string(out) != "through stdin" {
		t.Errorf("stdin: %q, %v", out, err)
	}
	// A session of that name runs already.
	if r := e.nsrun("session", "start", "shared"); r.code != 125 || !strings.Contains(r.stderr, "running") {
		t.Errorf("a second session of the same name: %v", r)
	}
	if r := e.nsrun("session", "list"); !strings.Contains(r.stdout, "shared ") {
		t.Errorf("session list: %v", r)
	}
}

// An exec cannot change what the session enforces: sandbox options are
// refused, and the command gets exactly a one-shot run's confinement.
func TestSessionExecConfinement(t *testing.T) {
	e := newSessionEnv(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "file"), "ws")
	ro := workspace(t)
	writeFile(t, filepath.Join(ro, "mine"), "mine")
	if err := os.Symlink("/etc", filepath.Join(ws, "to-etc")); err != nil {
		t.Fatal(err)
	}
	opts := []string{"--rw", ws, "--ro", ro}
	e.start("confined", opts...)
	for _, refused := range [][]string{{"--rw", "/"}, {"--net", "host"}, {"--seccomp", "off"}, {"--memory", "1G"}, {"--preset", "agent"}} {
		r := e.nsrun(append(append([]string{"exec", "confined"}, refused...), "--", "/bin/true")...)
		if r.code != 125 {
			t.Errorf("exec %v: %v, want exit 125", refused, r)
		}
	}
	victim := hostVictim(t)
	self := itoa(victim.Process.Pid)
	for _, op := range [][]string{
		{"kill", self, "15"},
		{"pidfd", self},
		{"reopen-rw", filepath.Join(ro, "mine")},
		{"write", filepath.Join(ws, "to-etc", "nsrun-escape")},
		{"write", "/usr/nsrun-escape"},
		{"link", "/etc/hostname", filepath.Join(ws, "stolen")},
		{"append", "/proc/1/exe"},
		{"append", nsrunBin},
		{"append", "/proc/sys/kernel/core_pattern"},
		{"unshare-user"},
		{"mount", "/tmp"},
		{"mknod", "/tmp/null"},
		{"chroot"},
		{"write", filepath.Join(ws, "ok")},
	} {
		oneShot := helper(t, opts, op[0], op[1:]...)
		r := e.exec("confined", append([]string{helperBin}, op...)...)
		if r.stdout != oneShot {
			t.Errorf("%v: %q through exec, %q in a one-shot run (%v)", op, r.stdout, oneShot, r)
		}
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the host process the session aimed at is gone: %v", err)
	}
	// The kernel's account of the confinement, line by line.
	fields := "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|Seccomp_filters|Uid|Gid):' /proc/self/status"
	oneShot := run(t, "/", append(opts, "--", "/bin/sh", "-c", fields)...)
	inSession := e.exec("confined", "/bin/sh", "-c", fields)
	if oneShot.code != 0 || inSession.stdout != oneShot.stdout {
		t.Errorf("/proc/self/status through exec:\n%s\none-shot:\n%s", inSession.stdout, oneShot.stdout)
	}
	if !strings.Contains(inSession.stdout, "NoNewPrivs:\t1") || !strings.Contains(inSession.stdout, "CapEff:\t0000000000000000") {
		t.Errorf("exec's status: %s", inSession.stdout)
	}
	// Two commands are in the same namespaces, which are not the host's.
	first, second := e.exec("confined", helperBin, "ns").stdout, e.exec("confined", helperBin, "ns").stdout
	host, _ := os.Readlink("/proc/self/ns/pid")
	if first != second || first == "" || strings.Contains(first, host) {
		t.Errorf("namespaces: %q then %q (host pid %s)", first, second, host)
	}
}

// Nothing inside a session reaches its control socket, even where a rule
// shows the directory it is in; a client inside another sandbox is
// refused; another user sees nothing.
func TestSessionControlSocketOutOfReach(t *testing.T) {
	e := newSessionEnv(t)
	ws := workspace(t)
	e.start("guarded", "--ro", e.runtime, "--rw", ws)
	sock := filepath.Join(e.dir, "guarded.sock")
	if _, err := os.Stat(sock); err != nil {
		t.Fatal(err)
	}
	if r := e.exec("guarded", helperBin, "dial-unix", sock); r.stdout == "ok" {
		t.Errorf("a command reached the control socket: %v", r)
	}
	if r := e.exec("guarded", "/bin/ls", "-A", e.dir); r.stdout != "" {
		t.Errorf("the sessions directory inside: %v", r)
	}
	// nsrun in a one-shot sandbox that shows the directory: the socket
	// connects, and the holder serves nothing (a PID namespace not its own).
	marker := filepath.Join(ws, "ran")
	r := runEnv(t, "/", e.env, "--rw", e.runtime, "--rw", ws, "--", nsrunBin, "exec", "guarded", "--", "/bin/sh", "-c", "echo > "+marker)
	if r.code == 0 {
		t.Errorf("nsrun exec from inside a sandbox: %v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a client inside a sandbox started a command")
	}
	// The same from a Landlock-only sandbox, in the holder's PID
	// namespace: refused as more confined than the holder.
	r = runEnv(t, "/", e.env, "--isolation", "landlock", "--ro", filepath.Dir(nsrunBin), "--rw", e.runtime, "--rw", ws, "--", nsrunBin, "exec", "guarded", "--", "/bin/sh", "-c", "echo > "+marker)
	if r.code == 0 {
		t.Errorf("nsrun exec from inside a Landlock-only sandbox: %v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a client inside a Landlock-only sandbox started a command")
	}
	if os.Getuid() != 0 {
		return
	}
	// Another user: the directory is 0700, and a peer of another uid is
	// refused even when it may connect.
	other := exec.Command("runuser", "-u", "nsrun-test", "--", "env", "XDG_RUNTIME_DIR="+e.runtime, nsrunBin, "exec", "guarded", "--", "/bin/true")
	if out, err := other.CombinedOutput(); err == nil {
		t.Errorf("another user ran a command in root's session: %s", out)
	}
	dial := exec.Command("runuser", "-u", "nsrun-test", "--", helperBin, "dial-unix", sock)
	if out, _ := dial.CombinedOutput(); strings.TrimSpace(string(out)) == "ok" {
		t.Errorf("another user connected to the control socket")
	}
	list := exec.Command("runuser", "-u", "nsrun-test", "--", nsrunBin, "session", "list")
	if out, _ := list.CombinedOutput(); strings.Contains(string(out), "guarded") {
		t.Errorf("another user lists root's session: %s", out)
	}
}

// Stop, the idle timeout and the timeout each end every process and
// remove the socket, the lock, the description and the cgroup.
func TestSessionEndsLeaveNothing(t *testing.T) {
	e := newSessionEnv(t)
	// A cgroup of the session's own, where this user may make one.
	limits := sessionLimits(t)
	for _, tc := range []struct {
		name string
		opts []string
		end  func(name string)
	}{
		{"stopped", limits, func(name string) {
			if r := e.nsrun("session", "stop", name); r.code != 0 {
				t.Errorf("stop: %v", r)
			}
		}},
		{"idle", []string{"--idle-timeout", "1s"}, func(string) {}},
		{"timed", []string{"--timeout", "2s"}, func(string) {}},
		// A command ends its own session: the holder goes too.
		{"ended-inside", nil, func(name string) { e.exec(name, "/bin/kill", "-TERM", "1") }},
	} {
		e.start(tc.name, tc.opts...)
		holder, init := e.info(tc.name)
		if init == 0 {
			t.Fatalf("%s: no init found under holder %d", tc.name, holder)
		}
		ns := holdPIDNamespace(t, init)
		cg, _ := os.ReadFile("/proc/" + itoa(init) + "/cgroup")
		if r := e.exec(tc.name, "/bin/sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo started"); r.stdout != "started" {
			t.Fatal(r)
		}
		if n := len(nsProcs(ns)); n < 2 {
			t.Fatalf("%s: %d processes in the session", tc.name, n)
		}
		tc.end(tc.name)
		if !gone(func() bool { return len(nsProcs(ns)) == 0 && syscall.Kill(holder, 0) != nil }) {
			t.Errorf("%s: processes left: %v (holder %d)", tc.name, nsProcs(ns), holder)
		}
		if !gone(func() bool { entries, _ := os.ReadDir(e.dir); return len(entries) == 0 }) {
			entries, _ := os.ReadDir(e.dir)
			t.Errorf("%s: left in the sessions directory: %v", tc.name, entries)
		}
		if tc.name == "stopped" && limits != nil {
			checkCgroupGone(t, string(cg))
		}
		if r := e.exec(tc.name, "/bin/true"); r.code != 125 {
			t.Errorf("%s: exec after the end: %v", tc.name, r)
		}
	}
}

// sandboxCgroups are the directories of nsrun's cgroups in a
// /proc/PID/cgroup (v2, or v1's per controller).
func sandboxCgroups(procCgroup string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(procCgroup), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.Contains(f[2], "nsrun-") {
			continue
		}
		if f[1] == "" {
			out = append(out, filepath.Join("/sys/fs/cgroup", f[2]))
		} else {
			out = append(out, filepath.Join("/sys/fs/cgroup", f[1], f[2]))
		}
	}
	return out
}

// checkCgroupGone checks that the sandbox's own cgroups are removed.
func checkCgroupGone(t *testing.T, procCgroup string) {
	t.Helper()
	dirs := sandboxCgroups(procCgroup)
	if len(dirs) == 0 {
		t.Errorf("no cgroup of nsrun's in %q", procCgroup)
	}
	for _, d := range dirs {
		if !gone(func() bool { _, err := os.Stat(d); return err != nil }) {
			t.Errorf("cgroup %s left", d)
		}
	}
}

// kill -9 of the holder ends every process of the session at once (the
// init's parent-death signal); the next nsrun removes the socket and the
// lock it left.
func TestSessionHolderKilled(t *testing.T) {
	e := newSessionEnv(t)
	limits := sessionLimits(t)
	e.start("killed", limits...)
	holder, init := e.info("killed")
	ns := holdPIDNamespace(t, init)
	cg, _ := os.ReadFile("/proc/" + itoa(init) + "/cgroup")
	if r := e.exec("killed", "/bin/sh", "-c", "sleep 1000 >/dev/null 2>&1 &"); r.code != 0 {
		t.Fatal(r)
	}
	if err := syscall.Kill(holder, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !gone(func() bool { return len(nsProcs(ns)) == 0 }) {
		t.Errorf("processes left after kill -9 of the holder: %v", nsProcs(ns))
	}
	if _, err := os.Stat(filepath.Join(e.dir, "killed.sock")); err != nil {
		t.Logf("the socket went with the holder: %v", err)
	}
	if r := e.nsrun("session", "list"); r.code != 0 || strings.Contains(r.stdout, "killed") {
		t.Errorf("session list after kill -9: %v", r)
	}
	if entries, _ := os.ReadDir(e.dir); len(entries) != 0 {
		t.Errorf("left after the next run: %v", entries)
	}
	if limits != nil {
		// The next run that makes a cgroup removes those of dead nsruns.
		if r := run(t, "/", append(limits, "--", "/bin/true")...); r.code != 0 {
			t.Fatal(r)
		}
		checkCgroupGone(t, string(cg))
	}
	// The name is free again.
	e.start("killed")
	expect(t, "a new session of the name", e.exec("killed", "/bin/echo", "again").stdout, "again")
}

// A Landlock-only session and an exec into no session are refused.
func TestSessionRefusals(t *testing.T) {
	e := newSessionEnv(t)
	if r := e.nsrun("session", "start", "--isolation", "landlock", "ll"); r.code != 125 || !strings.Contains(r.stderr, "--isolation landlock: a session cannot be Landlock-only") {
		t.Errorf("a Landlock-only session: %v", r)
	}
	if r := e.exec("none", "/bin/true"); r.code != 125 || !strings.Contains(r.stderr, "no session") {
		t.Errorf("exec into no session: %v", r)
	}
	if r := e.nsrun("session", "start", "../x"); r.code != 125 {
		t.Errorf("a name with a slash: %v", r)
	}
	if r := e.nsrun("--idle-timeout", "1s", "--", "/bin/true"); r.code != 125 {
		t.Errorf("--idle-timeout on a one-shot run: %v", r)
	}
}

// With a terminal, a command gets a pseudo-terminal of its own, made by
// nsrun exec and relayed to the caller's: it is the command's controlling
// terminal (Ctrl-C interrupts its foreground job), it has the caller's
// size, and seccomp still refuses TIOCSTI on it.
func TestSessionExecTerminal(t *testing.T) {
	e := newSessionEnv(t)
	e.start("term")
	s := newTmux(t, 80, 24, "env "+strings.Join(e.env, " ")+" "+nsrunBin+" exec term --env 'PS1=in-session$ ' -- /bin/bash --norc --noprofile -i; echo exec-exit=$?; sleep 30")
	s.waitFor("in-session$")
	s.send("test -t 0 && echo tty-yes; stty size", "Enter")
	s.waitFor("tty-yes")
	s.waitFor("24 80")
	s.send("sleep 60", "Enter")
	time.Sleep(300 * time.Millisecond)
	s.send("C-c")
	s.send("echo rc=$?", "Enter")
	s.waitFor("rc=130")
	s.cmd("resize-window", "-t", "nsrun", "-x", "100", "-y", "30")
	time.Sleep(200 * time.Millisecond)
	s.send("stty size", "Enter")
	s.waitFor("30 100")
	s.send(helperBin+" tiocsti 0", "Enter")
	s.waitFor("EPERM")
	s.send("exit 5", "Enter")
	s.waitFor("exec-exit=5")
	// Without a terminal: no pty.
	expect(t, "exec without a terminal", e.exec("term", "/bin/sh", "-c", "test -t 0 || echo no-tty").stdout, "no-tty")
}

// Ctrl-Z in nsrun exec --tty is a one-shot --tty run's: a command that is
// not a shell stops, and nsrun exec with it as a job of the caller's
// shell, and fg gives it the terminal back; a shell inside stops its own
// foreground job and keeps the terminal, and nsrun exec runs on.
func TestSessionExecCtrlZ(t *testing.T) {
	e := newSessionEnv(t)
	e.start("jobs")
	s := newTmux(t, 100, 30, "env "+strings.Join(e.env, " ")+" PS1='outer$ ' /bin/bash --norc --noprofile -i")
	s.waitFor("outer$")
	// Ctrl-Z once the command reads (a fixed pause was too short for a
	// loaded machine: the key reached nsrun exec before its terminal was
	// the command's); the marker is spelt so that the typed line is not it.
	s.send(nsrunBin+" exec jobs -- /bin/sh -c 'echo read''ing; read line; echo got-$line'", "Enter")
	s.waitFor("reading")
	time.Sleep(200 * time.Millisecond)
	s.send("C-z")
	s.waitFor("Stopped")
	s.send("jobs -l; echo jobs-done", "Enter")
	s.waitFor("jobs-done")
	s.fgAndAnswer()

	s.send(nsrunBin+" exec jobs --env 'PS1=inner$ ' -- /bin/bash --norc --noprofile -i", "Enter")
	s.waitFor("inner$")
	s.send("sleep 50", "Enter")
	time.Sleep(300 * time.Millisecond)
	s.send("C-z")
	s.waitFor("Stopped")
	// Until bash has seen the job end: an exit while its table still
	// holds it meets "There are stopped jobs" (wait returns at once for a
	// job it thinks stopped).
	s.send("kill %1; until [ -z \"$(jobs)\" ]; do sleep 0.1; done; echo inner-killed-$?", "Enter")
	s.waitFor("inner-killed-0")
	s.send("exit 3", "Enter")
	s.waitForPrompt("outer$")
	s.send("echo rc=$?", "Enter")
	s.waitFor("rc=3")
}

// An exec's report is the session's (what is enforced) with the command's
// exit; the session's report is written once it is stopped.
func TestSessionReports(t *testing.T) {
	e := newSessionEnv(t)
	out := workspace(t)
	sessionReport, execReport := filepath.Join(out, "session.json"), filepath.Join(out, "exec.json")
	e.start("reported", "--report", sessionReport)
	if r := e.nsrun("exec", "reported", "--report", execReport, "--", "/bin/sh", "-c", "exit 3"); r.code != 3 {
		t.Fatal(r)
	}
	var rep struct {
		Backend string   `json:"backend"`
		Command []string `json:"command"`
		Exit    struct {
			Code int `json:"code"`
		} `json:"exit"`
		Seccomp struct {
			Status string `json:"status"`
		} `json:"seccomp"`
	}
	if err := json.Unmarshal([]byte(readFile(t, execReport)), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Backend != "linux" || rep.Exit.Code != 3 || len(rep.Command) != 3 || rep.Seccomp.Status == "" {
		t.Errorf("exec report: %+v", rep)
	}
	if r := e.nsrun("session", "stop", "reported"); r.code != 0 {
		t.Fatal(r)
	}
	if !gone(func() bool { _, err := os.Stat(sessionReport); return err == nil }) {
		t.Fatal("no session report after stop")
	}
	if err := json.Unmarshal([]byte(readFile(t, sessionReport)), &rep); err != nil || rep.Backend != "linux" {
		t.Errorf("session report: %+v, %v", rep, err)
	}
}

// sessionReport is what a test reads of a session's report.
type sessionReport struct {
	Usage struct {
		MaxRSSKiB int64 `json:"max_rss_kib"`
	} `json:"usage"`
	Session struct {
		Ended    string `json:"ended"`
		Commands []struct {
			Command []string `json:"command"`
			For     string   `json:"for"`
			Pid     int      `json:"pid"`
			Exit    struct {
				Code int `json:"code"`
			} `json:"exit"`
			DurationMS float64 `json:"duration_ms"`
			Error      string  `json:"error"`
		} `json:"commands"`
		Killed []struct {
			Pid     int      `json:"pid"`
			Command []string `json:"command"`
		} `json:"killed"`
	} `json:"session"`
}

func readSessionReport(t *testing.T, path string) sessionReport {
	t.Helper()
	var rep sessionReport
	if err := json.Unmarshal([]byte(readFile(t, path)), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// The report of session stop --report lists every command, with whom it
// ran for and how it ended, what was left running (and is gone), why the
// session ended, and a peak memory at least what one command allocated.
// The idle timeout writes the report given at start, and says why.
func TestSessionStopReport(t *testing.T) {
	e := newSessionEnv(t)
	out := workspace(t)
	e.start("rep")
	if r := e.exec("rep", "/bin/sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo $!"); r.code != 0 {
		t.Fatal(r)
	}
	_, init := e.info("rep")
	link, err := os.Readlink("/proc/" + strconv.Itoa(init) + "/ns/pid")
	if err != nil {
		t.Fatal(err)
	}
	if r := e.exec("rep", "dd", "if=/dev/zero", "of=/dev/null", "bs=50M", "count=1"); r.code != 0 {
		t.Fatal(r)
	}
	if r := e.exec("rep", "/bin/sh", "-c", "exit 4"); r.code != 4 {
		t.Fatal(r)
	}
	if r := e.exec("rep", "/no/such/command"); r.code != 127 {
		t.Fatal(r)
	}
	path := filepath.Join(out, "stop.json")
	if r := e.nsrun("session", "stop", "--report", path, "rep"); r.code != 0 {
		t.Fatal(r)
	}
	rep := readSessionReport(t, path)
	s := rep.Session
	if s.Ended != "stop" || len(s.Commands) != 4 {
		t.Fatalf("session report: %+v", s)
	}
	wantCodes := []int{0, 0, 4, 127}
	for i, c := range s.Commands {
		if c.Exit.Code != wantCodes[i] || !strings.Contains(c.For, "nsrun") || c.DurationMS <= 0 {
			t.Errorf("command %d: %+v", i, c)
		}
	}
	if s.Commands[3].Error == "" || s.Commands[3].Pid != 0 || s.Commands[1].Command[0] != "dd" {
		t.Errorf("commands: %+v", s.Commands)
	}
	if len(s.Killed) != 1 || strings.Join(s.Killed[0].Command, " ") != "sleep 1000" || s.Killed[0].Pid <= 1 {
		t.Errorf("killed: %+v", s.Killed)
	}
	if procs := nsProcs(link); len(procs) != 0 {
		t.Errorf("left running after stop: %v", procs)
	}
	if rep.Usage.MaxRSSKiB < 50*1024 {
		t.Errorf("peak memory %d KiB, under the 50 MiB a command allocated", rep.Usage.MaxRSSKiB)
	}

	idlePath := filepath.Join(out, "idle.json")
	e.start("idle", "--idle-timeout", "500ms", "--report", idlePath)
	if r := e.exec("idle", "/bin/true"); r.code != 0 {
		t.Fatal(r)
	}
	if !gone(func() bool { _, err := os.Stat(idlePath); return err == nil }) {
		t.Fatal("no report after the idle timeout")
	}
	if s := readSessionReport(t, idlePath).Session; s.Ended != "idle-timeout" || len(s.Commands) != 1 {
		t.Errorf("idle session's report: %+v", s)
	}
}

// Under --trace-denials each exec's report lists its own denials (an
// exec that was refused nothing has an empty list), and the session's
// report those of processes that outlived their command.
func TestSessionTraceDenials(t *testing.T) {
	e := newSessionEnv(t)
	ws, out := workspace(t), workspace(t)
	e.start("traced", "--trace-denials", "--ro", ws)
	denials := func(path string) []string {
		var rep struct {
			Denials *[]struct {
				Path string `json:"path"`
				Rule string `json:"rule"`
			} `json:"denials"`
		}
		if err := json.Unmarshal([]byte(readFile(t, path)), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Denials == nil {
			t.Fatalf("%s: no denials list", path)
		}
		var paths []string
		for _, d := range *rep.Denials {
			paths = append(paths, d.Path)
		}
		return paths
	}
	first, second, final := filepath.Join(out, "1.json"), filepath.Join(out, "2.json"), filepath.Join(out, "s.json")
	if r := e.nsrun("exec", "traced", "--report", first, "--", "/bin/sh", "-c",
		"touch "+ws+"/one; (sleep 0.5; touch "+ws+"/late) >/dev/null 2>&1 & exit 0"); r.code != 0 {
		t.Fatal(r)
	}
	if r := e.nsrun("exec", "traced", "--report", second, "--", "/bin/true"); r.code != 0 {
		t.Fatal(r)
	}
	if got := denials(first); len(got) != 1 || got[0] != ws+"/one" {
		t.Errorf("first exec's denials: %v", got)
	}
	if got := denials(second); len(got) != 0 {
		t.Errorf("second exec's denials: %v", got)
	}
	time.Sleep(time.Second)
	if r := e.nsrun("session", "stop", "--report", final, "traced"); r.code != 0 {
		t.Fatal(r)
	}
	if got := denials(final); len(got) != 1 || got[0] != ws+"/late" {
		t.Errorf("the session's denials: %v", got)
	}
}

// sessionLimits are the options that give a session a cgroup of its own
// where this user may make one here (root, with a cgroup hierarchy it may
// write: not in every container), and none elsewhere, said in the log.
func sessionLimits(t *testing.T) []string {
	t.Helper()
	if os.Getuid() != 0 {
		return nil
	}
	limits := []string{"--pids", "64"}
	if r := run(t, t.TempDir(), append(limits, "--", "true")...); r.code != 0 {
		t.Logf("no cgroup for the session here, its removal is not checked: %s", strings.TrimSpace(r.stderr))
		return nil
	}
	return limits
}

// A session warns as a one-shot run does: what its end finds (here a
// repository a command made in the workspace, which host git would enter)
// is printed by session stop and listed in the session's report; the
// session has no stderr of its own to print it to. Before, stop printed
// nothing and only the report's "nested_repositories" had it.
func TestSessionStopWarns(t *testing.T) {
	e := newSessionEnv(t)
	ws := workspace(t)
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	r := runEnv(t, ws, e.env, "session", "start", "--preset", "agent", "warns")
	if r.code != 0 {
		t.Fatalf("session start: %v", r)
	}
	t.Cleanup(func() { e.nsrun("session", "stop", "warns") })
	if r := runEnv(t, ws, e.env, "exec", "warns", "--", "git", "init", "-q", "src"); r.code != 0 {
		t.Fatalf("exec git init: %v", r)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	r = e.nsrun("session", "stop", "--report", report, "warns")
	src := filepath.Join(ws, "src")
	if r.code != 0 || !strings.Contains(r.stderr, "nsrun: warning: git: "+src+" is a repository the sandbox made") {
		t.Fatalf("session stop: want the warning about %s, got %v", src, r)
	}
	var rep struct {
		Session struct {
			Warnings []string `json:"warnings"`
		} `json:"session"`
	}
	if err := json.Unmarshal([]byte(readFile(t, report)), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Session.Warnings) == 0 || !strings.Contains(strings.Join(rep.Session.Warnings, "\n"), src+" is a repository the sandbox made") {
		t.Errorf("the session's report has warnings %q", rep.Session.Warnings)
	}
}
