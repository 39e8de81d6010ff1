package nsrun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/procfs"
)

// Both kinds of sandbox: a PID namespace with an init, and the Landlock-
// only payload without one.
var isolations = []Isolation{IsolationFull, IsolationLandlock}

// StdinPipe, StdoutPipe and StderrPipe carry the payload's streams; read
// to their end, then Wait closes them; they refuse a stream already set
// and a Cmd already started.
func TestLibraryStdPipes(t *testing.T) {
	needSandbox(t)
	for _, iso := range isolations {
		cmd := Command(&Policy{Isolation: iso}, "/bin/sh", "-c", "read x; echo out-$x; echo err-$x >&2; cat")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cmd.StdoutPipe(); err == nil || !strings.Contains(err.Error(), "Stdout already set") {
			t.Errorf("%v: a second StdoutPipe: %v", iso, err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := cmd.StdinPipe(); err == nil {
			t.Errorf("%v: StdinPipe after Start", iso)
		}
		if _, err := io.WriteString(stdin, "a\nrest"); err != nil {
			t.Fatal(err)
		}
		stdin.Close() // the payload's cat sees the end of its input
		var out, errOut []byte
		done := make(chan struct{})
		go func() { errOut, _ = io.ReadAll(stderr); close(done) }()
		out, _ = io.ReadAll(stdout)
		<-done
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v", iso, err)
		}
		if string(out) != "out-a\nrest" || string(errOut) != "err-a\n" {
			t.Errorf("%v: stdout %q, stderr %q", iso, out, errOut)
		}
		// Wait closed them; closing again is harmless.
		if _, err := stdout.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%v: stdout after Wait: %v", iso, err)
		}
		if err := stdin.Close(); err != nil {
			t.Errorf("%v: closing stdin twice: %v", iso, err)
		}
	}
}

// Output returns the standard output, and with no Stderr set gives the
// ExitError the standard error; CombinedOutput has both, in order.
func TestLibraryOutput(t *testing.T) {
	needSandbox(t)
	out, err := Command(nil, "/bin/sh", "-c", "echo out; echo oops >&2; exit 4").Output()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 4 || string(ee.Stderr) != "oops\n" || string(out) != "out\n" {
		t.Errorf("Output: %q, %v (stderr %q)", out, err, ee.Stderr)
	}
	var mine bytes.Buffer
	cmd := Command(nil, "/bin/sh", "-c", "echo oops >&2; exit 4")
	cmd.Stderr = &mine
	if _, err := cmd.Output(); !errors.As(err, &ee) || ee.Stderr != nil || mine.String() != "oops\n" {
		t.Errorf("Output with Stderr set: %v, %q", err, mine.String())
	}
	out, err = Command(nil, "/bin/sh", "-c", "echo 1; echo 2 >&2; echo 3").CombinedOutput()
	if err != nil || string(out) != "1\n2\n3\n" {
		t.Errorf("CombinedOutput: %q, %v", out, err)
	}
	cmd = Command(nil, "/bin/true")
	cmd.Stdout = io.Discard
	if _, err := cmd.Output(); err == nil || !strings.Contains(err.Error(), "Stdout already set") {
		t.Errorf("Output with Stdout set: %v", err)
	}
	cmd = Command(nil, "/bin/true")
	cmd.Stderr = io.Discard
	if _, err := cmd.CombinedOutput(); err == nil || !strings.Contains(err.Error(), "Stderr already set") {
		t.Errorf("CombinedOutput with Stderr set: %v", err)
	}
}

// The shell's own descriptors, listed by ls, a child of it (not in a
// pipeline, for which the shell holds pipes): the payload has its three
// streams and what ExtraFiles gave, at 3, 4, ..., and not one descriptor
// of nsrun's, the init's or this process's more.
const listFDs = `ls /proc/$$/fd; echo end`

// listedFDs is what listFDs printed, in one line.
func listedFDs(out string) string {
	before, _, _ := strings.Cut(strings.ReplaceAll(out, "\r", ""), "end\n")
	return strings.Join(strings.Fields(before), " ")
}

func TestLibraryExtraFiles(t *testing.T) {
	needSandbox(t)
	// This process's, not passed, and not close-on-exec: the init and the
	// fork helper inherit it and must keep it from the payload.
	leak, err := syscall.Open("/etc/hostname", syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(leak)
	for _, iso := range isolations {
		for _, tty := range []TTYMode{TTYNever, TTYAlways} {
			if tty == TTYAlways && iso == IsolationFull {
				continue // the init forks the payload either way
			}
			r3, w3, _ := os.Pipe()
			r5, w5, _ := os.Pipe()
			var out bytes.Buffer
			script := listFDs + "; echo three >&3; echo five >&5"
			cmd := Command(&Policy{Isolation: iso}, "/bin/sh", "-c", script)
			cmd.Stdout, cmd.TTY = &out, tty
			cmd.ExtraFiles = []*os.File{w3, nil, w5}
			if err := cmd.Start(); err != nil {
				t.Fatalf("%v %v: %v", iso, tty, err)
			}
			w3.Close()
			w5.Close()
			got3, _ := io.ReadAll(r3)
			got5, _ := io.ReadAll(r5)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v %v: %v (%q)", iso, tty, err, out.String())
			}
			if first := listedFDs(out.String()); first != "0 1 2 3 5" {
				t.Errorf("%v %v: the payload's descriptors are %q, want 0 1 2 3 5", iso, tty, first)
			}
			if string(got3) != "three\n" || string(got5) != "five\n" {
				t.Errorf("%v %v: through the descriptors: %q, %q", iso, tty, got3, got5)
			}
			rep := cmd.Report().ExtraFiles
			if len(rep) != 2 || rep[0].FD != 3 || rep[1].FD != 5 || !strings.HasPrefix(rep[0].Name, "pipe:[") {
				t.Errorf("%v %v: report %+v", iso, tty, rep)
			}
			r3.Close()
			r5.Close()
		}
	}
	// Without ExtraFiles: the streams alone.
	out, err := Command(nil, "/bin/sh", "-c", listFDs).Output()
	if err != nil || listedFDs(string(out)) != "0 1 2" {
		t.Errorf("no ExtraFiles: %q, %v", out, err)
	}
	// The Landlock-only stage puts them in place before it executes the
	// payload: an exec that fails then still reports, and writes nothing
	// to them.
	garbage := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(garbage, []byte("\x00\x01not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, w, _ := os.Pipe()
	cmd := Command(&Policy{Isolation: IsolationLandlock, Rules: []Rule{{Path: filepath.Dir(garbage), Access: ReadOnly}}}, garbage)
	cmd.ExtraFiles = []*os.File{w, nil}
	err = cmd.Run()
	w.Close()
	got, _ := io.ReadAll(r)
	r.Close()
	if ExitCode(err) != ExitNotExecutable || !strings.Contains(err.Error(), "exec "+garbage) || len(got) != 0 {
		t.Errorf("an exec that fails after the files are placed: %v, %q", err, got)
	}
	closed, _, _ := os.Pipe()
	closed.Close()
	cmd = Command(nil, "/bin/true")
	cmd.ExtraFiles = []*os.File{closed}
	if err := cmd.Run(); ExitCode(err) != ExitSetup || !strings.Contains(err.Error(), "ExtraFiles[0]") {
		t.Errorf("a closed file: %v", err)
	}
}

// A directory given as an ExtraFile is passed, and said to reach past the
// mounts.
func TestLibraryExtraFileDirectoryWarns(t *testing.T) {
	needSandbox(t)
	dir, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	var warn bytes.Buffer
	cmd := Command(nil, "/bin/true")
	cmd.ExtraFiles, cmd.Warnings = []*os.File{dir}, &warn
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "ExtraFiles[0] (descriptor 3 inside) is the directory "+dir.Name()) {
		t.Errorf("warnings: %q", warn.String())
	}
}

// Process is the payload as this program sees it: its pid outside the
// PID namespace (another inside), a child of the init (or of the
// Landlock-only stage, its supervisor); Process.Signal reaches it alone;
// after Wait it is released.
func TestLibraryProcessIsThePayload(t *testing.T) {
	needSandbox(t)
	for _, iso := range isolations {
		cmd := Command(&Policy{Isolation: iso}, "/bin/sh", "-c", "trap 'echo usr1; exit 7' USR1; echo ready; while :; do sleep 0.05; done")
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "ready\n" {
			t.Fatalf("%v: %q %v", iso, buf, err)
		}
		pid := cmd.Process.Pid
		st, err := procfs.ReadStatus(pid)
		if err != nil {
			t.Fatal(err)
		}
		ppid, _ := st.Int("PPid", false)
		nspid, _ := st.Int("NSpid", true)
		if iso == IsolationFull && (ppid != cmd.sys.sb.Pid() || nspid <= 1 || nspid == pid) || iso == IsolationLandlock && (ppid != cmd.sys.sb.Pid() || nspid != pid) {
			t.Errorf("%v: pid %d has parent %d and pid %d inside (init %d)", iso, pid, ppid, nspid, cmd.sys.sb.Pid())
		}
		if exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); !strings.HasSuffix(exe, "sh") {
			t.Errorf("%v: pid %d is %s", iso, pid, exe)
		}
		if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(stdout)
		err = cmd.Wait()
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 7 || string(rest) != "usr1\n" {
			t.Errorf("%v: %v, %q", iso, err, rest)
		}
		if cmd.Process.Pid != pid || cmd.Process.Signal(syscall.Signal(0)) == nil {
			t.Errorf("%v: after Wait the Process is %d and still signals", iso, cmd.Process.Pid)
		}
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "Wait called twice") {
			t.Errorf("%v: a second Wait: %v", iso, err)
		}
	}
	// A payload that ends at once is still the one found: its supervisor
	// keeps it a zombie until this process knows its pid.
	for i := 0; i < 10; i++ {
		for _, iso := range isolations {
			cmd := Command(&Policy{Isolation: iso}, "/bin/true")
			cmd.TTY = TTYAlways // the Landlock-only stage supervises then
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			if cmd.Process == nil || cmd.Process.Pid <= 0 || cmd.Process.Pid == cmd.sys.sb.Pid() {
				t.Fatalf("%v: a quick payload's Process is %v (the supervisor is %d)", iso, cmd.Process, cmd.sys.sb.Pid())
			}
		}
	}
	// Kill ends the whole sandbox, not only the payload.
	cmd := Command(nil, "/bin/sh", "-c", "sleep 60 & echo $!; wait")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(stdout, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); ExitCode(err) != 137 {
		t.Errorf("after Process.Kill: %v", err)
	}
	if kids, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.sys.sb.Pid()) + "/task/" + strconv.Itoa(cmd.sys.sb.Pid()) + "/children"); len(kids) != 0 {
		t.Errorf("the init still has children: %s", kids)
	}
}

// The context: cancelled before Start, Start returns its error and nothing
// runs; cancelled while running, the sandbox ends and Wait's error matches
// it; the report says cancelled, not timed out.
func TestLibraryContextBeforeStart(t *testing.T) {
	needSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := CommandContext(ctx, &Policy{Rules: []Rule{{Path: filepath.Dir(marker), Access: ReadWrite}}}, "/bin/sh", "-c", "touch "+marker)
	if err := cmd.Start(); err != context.Canceled {
		t.Errorf("Start: %v, want context.Canceled itself", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	if r := cmd.Report(); r.Error != "context canceled" || r.Enforcement != "none" || r.Usage != nil {
		t.Errorf("report %+v", r)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("Wait after a failed Start")
	}
	dctx, dcancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer dcancel()
	<-dctx.Done()
	if err := CommandContext(dctx, nil, "/bin/true").Run(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline before Start: %v", err)
	}
	//lint:ignore SA1012 a nil context is what is tested
	if err := CommandContext(nil, nil, "/bin/true").Run(); err == nil || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("nil context: %v", err)
	}
	c := Command(nil, "/bin/true")
	c.Cancel = func() error { return nil }
	if err := c.Run(); err == nil || !strings.Contains(err.Error(), "CommandContext") {
		t.Errorf("Cancel without a context: %v", err)
	}
}

// With WaitDelay, the end of the context (and Timeout) gives the payload
// SIGTERM first: one that ends cleanly on it exits as it chose, and Wait
// still says the context ended it; one that ignores it is killed with the
// whole sandbox after the delay.
func TestLibraryCancelGrace(t *testing.T) {
	needSandbox(t)
	for _, iso := range isolations {
		ws := t.TempDir()
		p := &Policy{Isolation: iso, Rules: []Rule{{Path: ws, Access: ReadWrite}}}
		clean := filepath.Join(ws, "clean")

		// Ends on SIGTERM, within the delay: its own status, the context's
		// error, the report's cancelled.
		ctx, cancel := context.WithCancel(context.Background())
		cmd := CommandContext(ctx, p, "/bin/sh", "-c", "trap 'echo bye > "+clean+"; exit 0' TERM; echo up; while :; do sleep 0.05; done")
		cmd.WaitDelay = 5 * time.Second
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.ReadFull(stdout, make([]byte, 3))
		start := time.Now()
		cancel()
		io.Copy(io.Discard, stdout)
		err := cmd.Wait()
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 0 || !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
			t.Errorf("%v: a payload that ends on SIGTERM: %v after %v", iso, err, time.Since(start))
		}
		if b, _ := os.ReadFile(clean); string(b) != "bye\n" {
			t.Errorf("%v: the payload's SIGTERM handler did not run: %q", iso, b)
		}
		if r := cmd.Report(); !r.Exit.Cancelled || r.Exit.TimedOut || r.Exit.Code != 0 {
			t.Errorf("%v: report exit %+v", iso, r.Exit)
		}

		// Ignores SIGTERM: killed, with its child, after the delay. (The
		// context ends once the sandbox is up: a loaded machine may take
		// longer than a deadline to build it.)
		// The payload says when its trap is set: a SIGTERM before that
		// would end the shell, on a machine however loaded.
		ctx, cancel = context.WithCancel(context.Background())
		cmd = CommandContext(ctx, p, "/bin/sh", "-c", "trap '' TERM; sleep 60 & echo $! > "+ws+"/child; echo set; wait")
		cmd.WaitDelay = 250 * time.Millisecond
		if stdout, err = cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.ReadFull(stdout, make([]byte, 3))
		start = time.Now()
		cancel()
		io.Copy(io.Discard, stdout)
		err = cmd.Wait()
		took := time.Since(start)
		if !errors.As(err, &ee) || ee.Code != 137 || !errors.Is(err, context.Canceled) || took < 250*time.Millisecond || took > 30*time.Second {
			t.Errorf("%v: a payload that ignores SIGTERM: %v after %v", iso, err, took)
		}
		if b, err := os.ReadFile(ws + "/child"); err == nil {
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); iso == IsolationLandlock && !gone(pid) {
				t.Errorf("%v: the payload's child %d outlived the sandbox", iso, pid)
			}
		}

		// Cancel set to nil: the context's end does nothing until the
		// delay kills the sandbox.
		ctx, cancel = context.WithCancel(context.Background())
		cmd = CommandContext(ctx, p, "/bin/sh", "-c", "trap 'exit 9' TERM; while :; do sleep 0.05; done")
		cmd.Cancel, cmd.WaitDelay = nil, 150*time.Millisecond
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := cmd.Wait(); !errors.As(err, &ee) || ee.Code != 137 || !errors.Is(err, context.Canceled) {
			t.Errorf("%v: Cancel nil: %v", iso, err)
		}

		// A Cancel of the caller's: its error is joined to the context's.
		ctx, cancel = context.WithCancel(context.Background())
		cmd = CommandContext(ctx, p, "/bin/sleep", "60")
		refused := errors.New("refused")
		cmd.Cancel, cmd.WaitDelay = func() error { return refused }, 100*time.Millisecond
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := cmd.Wait(); !errors.Is(err, context.Canceled) || !errors.Is(err, refused) {
			t.Errorf("%v: a failing Cancel: %v", iso, err)
		}
	}
}

// Timeout with WaitDelay is --timeout with --kill-after: SIGTERM at the
// timeout, SIGKILL of the sandbox later, 124 either way.
func TestLibraryTimeoutGrace(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct {
		script string
		least  time.Duration
	}{
		{"trap 'exit 0' TERM; while :; do sleep 0.05; done", time.Second},
		{"trap '' TERM; while :; do sleep 0.05; done", 1300 * time.Millisecond},
	} {
		// A timeout well past the sandbox's start, even on a loaded
		// machine: the payload must be running when it expires.
		cmd := Command(nil, "/bin/sh", "-c", tc.script)
		cmd.Timeout, cmd.WaitDelay = time.Second, 300*time.Millisecond
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		var ee *ExitError
		if !errors.As(err, &ee) || !ee.TimedOut || ee.Code != ExitTimeout || errors.Is(err, context.Canceled) || took < tc.least || took > time.Minute {
			t.Errorf("%q: %v after %v", tc.script, err, took)
		}
		if r := cmd.Report(); !r.Exit.TimedOut || r.Exit.Cancelled {
			t.Errorf("%q: report exit %+v", tc.script, r.Exit)
		}
	}
}

// After the sandbox ended, WaitDelay bounds the wait for its output: a
// process that escaped the sandbox's end (possible only without a PID
// namespace) and holds the output pipe is cut off, and Wait says
// ErrWaitDelay; one that was killed lets Wait return at once.
func TestLibraryWaitDelayCutsOutput(t *testing.T) {
	needSandbox(t)
	for _, iso := range isolations {
		ws := t.TempDir()
		var out bytes.Buffer
		cmd := Command(&Policy{Isolation: iso, Rules: []Rule{{Path: ws, Access: ReadWrite}}},
			"/bin/sh", "-c", "setsid sh -c 'echo $$ > "+ws+"/pid; exec sleep 30' & while [ ! -s "+ws+"/pid ]; do sleep 0.01; done; echo done")
		cmd.Stdout, cmd.WaitDelay = &out, 300*time.Millisecond
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		// Without a PID namespace the pid written is this one's too; with
		// one, the survivor would have held the output: Wait had to wait.
		survived := false
		if iso == IsolationLandlock {
			b, _ := os.ReadFile(ws + "/pid")
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if survived = alive(pid); survived {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		switch {
		// The survivor holds the output for 30 s: half of that tells
		// waiting for it from not, on a machine however loaded.
		case survived && (!errors.Is(err, ErrWaitDelay) || !errors.Is(err, exec.ErrWaitDelay) || took > 15*time.Second):
			t.Errorf("%v: output held by a survivor: %v after %v", iso, err, took)
		case !survived && (err != nil || took > 15*time.Second):
			t.Errorf("%v: %v after %v", iso, err, took)
		}
		if !strings.HasPrefix(out.String(), "done") {
			t.Errorf("%v: output %q", iso, out.String())
		}
	}
}

// Usage counts every process of the sandbox, an orphan the init adopted
// and killed at the end included, and a process killed by the timeout;
// with a memory limit it comes from the cgroup, memory.peak included.
func TestLibraryUsage(t *testing.T) {
	needSandbox(t)
	burn := `perl -e '1 while (times)[0] < 0.1'`
	hog := `perl -e '$x = "a" x (32 << 20); print length $x'`
	type usageCase struct {
		name    string
		policy  *Policy
		script  string
		timeout time.Duration
		source  string
		cpu     float64 // user ms at least; with 0, at most 30
		rss     int64   // KiB at least; with 0, at most 24 MiB
	}
	cases := []usageCase{
		{"nothing", nil, "true", 0, "rusage", 0, 0},
		{"cpu and memory", nil, burn + "; " + hog, 0, "rusage", 90, 32 << 10},
		// An orphan that has used 60 ms of CPU (the payload waits for it
		// to say so: a loaded machine may give it less in any fixed time)
		// and spins on until the init kills it at the end.
		{"an orphan killed at the end", nil, `(perl -e '1 while (times)[0] < 0.06; open F, ">/tmp/burnt"; close F; 1 while 1' &); until [ -e /tmp/burnt ]; do sleep 0.01; done`, 0, "rusage", 50, 0},
		{"killed by the timeout", nil, "perl -e '1 while 1'", time.Second, "rusage", 40, 0},
		{"landlock", &Policy{Isolation: IsolationLandlock}, burn + "; " + hog, 0, "rusage", 90, 32 << 10},
	}
	if cgroupUsable() {
		cases = append(cases, usageCase{"cgroup", &Policy{Memory: 512 << 20}, burn + "; " + hog, 0, "cgroup", 90, 32 << 10})
	}
	for _, tc := range cases {
		cmd := Command(tc.policy, "/bin/sh", "-c", tc.script)
		cmd.Timeout = tc.timeout
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if tc.timeout == 0 && err != nil || tc.timeout > 0 && ExitCode(err) != ExitTimeout {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		u := cmd.Report().Usage
		switch {
		case u == nil:
			t.Errorf("%s: no usage", tc.name)
		case u.Source != tc.source || u.UserMS < tc.cpu || u.MaxRSSKiB < tc.rss || u.WallMS <= 0 || u.WallMS > float64(wall.Milliseconds())+1:
			t.Errorf("%s: usage %+v (wall %v)", tc.name, *u, wall)
		case tc.rss == 0 && u.MaxRSSKiB > 24<<10 && !raceEnabled, tc.cpu == 0 && u.UserMS > 30 && !raceEnabled:
			// (The race detector's init, this test binary, is itself
			// larger and slower than that.)
			t.Errorf("%s: usage %+v counts what did not happen", tc.name, *u)
		}
	}
}

// alive says whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// gone waits a moment for pid to die: a signal is delivered when the
// process is next scheduled.
func gone(pid int) bool {
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	return !alive(pid)
}

// cgroupUsable says whether this process may make cgroups for limits.
func cgroupUsable() bool {
	cg, err := cgroup.New(cgroupLimits(&Policy{Memory: 64 << 20}))
	if err != nil {
		return false
	}
	cg.Remove()
	return true
}

// The memory limit's kill and the pids limit's refusals are said on
// Warnings in one line each.
func TestLibraryLimitsSaySo(t *testing.T) {
	needSandbox(t)
	if !cgroupUsable() {
		t.Skip("no cgroup for limits here")
	}
	var warn bytes.Buffer
	cmd := Command(&Policy{Memory: 32 << 20}, "perl", "-e", `$x = "a" x (256 << 20)`)
	cmd.Warnings = &warn
	if err := cmd.Run(); ExitCode(err) != 137 || !cmd.Report().Exit.OOMKilled {
		t.Errorf("memory hog: %v", err)
	}
	// The kernel may kill more than the hog (the init, when it is the
	// larger of what is left before the hog's memory is freed): the count
	// is the kernel's.
	if got := warn.String(); !regexp.MustCompile(`^nsrun: memory limit 32M reached: the kernel killed (1 process|[2-9] processes) of the sandbox \(OOM\)\n$`).MatchString(got) {
		t.Errorf("memory warning: %q", got)
	}
	warn.Reset()
	// The limit counts threads, the init's own too.
	cmd = Command(&Policy{Pids: 24}, "/bin/sh", "-c", "for i in $(seq 30); do sleep 1 & done; wait")
	cmd.Warnings = &warn
	cmd.Run()
	if got := warn.String(); !cmd.Report().Exit.PidsMax || !strings.HasPrefix(got, "nsrun: pids limit 24 reached: ") || !strings.HasSuffix(got, " refused\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("pids warning: %q", got)
	}
}

// A program that never called Init cannot start a sandbox: Start says so
// before forking anything (without it, the sandbox's init would run the
// program's main again).
func TestLibraryWithoutInit(t *testing.T) {
	if os.Getenv("NSRUN_TEST_NO_INIT") == "1" {
		cmd := Command(nil, "/bin/true")
		err := cmd.Start()
		kids, _ := os.ReadFile("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
		if err != ErrNoInit || !strings.Contains(err.Error(), "call nsrun.Init() first in main") || len(kids) != 0 || cmd.Report().Error != ErrNoInit.Error() {
			t.Fatalf("Start without Init: %v (children %q)", err, kids)
		}
		return
	}
	child := exec.Command(os.Args[0], "-test.run=^TestLibraryWithoutInit$", "-test.count=1")
	child.Env = append(os.Environ(), "NSRUN_TEST_NO_INIT=1")
	out, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("%v\n%s", err, out)
	}
}
