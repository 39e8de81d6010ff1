//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/pty"
)

var isolations = []string{"full", "landlock"}

// outerShell starts an interactive outer shell in tmux, the caller's side.
func outerShell(t *testing.T) *tmuxSession {
	t.Helper()
	s := newTmux(t, 100, 30, "env PS1='outer$ ' /bin/bash --norc --noprofile -i")
	s.waitFor("outer$")
	return s
}

// waitForPrompt waits until the screen's last line is prompt: the shell
// reads again (keys typed before would be the previous program's).
func (s *tmuxSession) waitForPrompt(prompt string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = strings.TrimRight(s.cmd("capture-pane", "-p", "-t", "nsrun"), "\n ")
		if strings.HasSuffix(screen, "\n"+prompt) || screen == prompt {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("no prompt %q:\n%s", prompt, screen)
}

// paneTTY is the terminal the outer shell and nsrun run on.
func (s *tmuxSession) paneTTY() string {
	s.t.Helper()
	return strings.TrimSpace(s.cmd("display", "-p", "-t", "nsrun", "#{pane_tty}"))
}

// modes is `stty -a` of the pane's terminal, read from outside.
func (s *tmuxSession) modes() string {
	s.t.Helper()
	out, err := exec.Command("stty", "-a", "-F", s.paneTTY()).CombinedOutput()
	if err != nil {
		s.t.Fatalf("stty -a -F %s: %v\n%s", s.paneTTY(), err, out)
	}
	return string(out)
}

// nsrunPid is the nsrun the outer shell runs, once it runs.
func (s *tmuxSession) nsrunPid() int {
	s.t.Helper()
	shellPid := strings.TrimSpace(s.cmd("display", "-p", "-t", "nsrun", "#{pane_pid}"))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile("/proc/" + shellPid + "/task/" + shellPid + "/children")
		for _, f := range strings.Fields(string(b)) {
			if exe, _ := os.Readlink("/proc/" + f + "/exe"); exe == nsrunBin {
				pid, _ := strconv.Atoi(f)
				return pid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatal("no nsrun under the outer shell")
	return 0
}

// The payload's terminal is a pty of the sandbox's own: in full isolation
// /dev/pts/0 of its devpts, with /dev/console naming it; with Landlock alone
// a new pty of the host's. No descriptor of the caller's terminal is inside,
// and what the payload does to its terminal's modes stays there.
func TestTerminalIsTheSandboxsOwn(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			s := outerShell(t)
			before := s.modes()
			s.send(nsrunBin+" -q --isolation "+mode+" --ro "+filepath.Dir(helperBin)+" -- sh -c 'echo tty=$(tty); echo console=$(readlink /dev/console); printf fds=; "+helperBin+" ttys; stty -echo -icanon -opost rows 7 cols 9; stty size'; echo rc=$?", "Enter")
			s.waitFor("rc=0")
			screen := s.cmd("capture-pane", "-p", "-t", "nsrun")
			tty := field(screen, "tty=")
			caller := s.paneTTY()
			if mode == "full" {
				expect(t, "tty", tty, "/dev/pts/0")
				expect(t, "/dev/console", field(screen, "console="), "pts/0")
			} else if !strings.HasPrefix(tty, "/dev/pts/") || tty == caller {
				t.Errorf("tty inside is %q; the caller's is %s", tty, caller)
			}
			expect(t, "terminal descriptors", field(screen, "fds="), "0:"+tty+" 1:"+tty+" 2:"+tty)
			if !strings.Contains(screen, "7 9") {
				t.Errorf("the payload's own stty did not apply inside:\n%s", screen)
			}
			if after := s.modes(); after != before {
				t.Errorf("the caller's terminal changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// field is the rest of the first screen line that starts with prefix.
func field(screen, prefix string) string {
	for _, l := range strings.Split(screen, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// A shell payload has full job control on its pty: background jobs, jobs,
// fg, Ctrl-Z and Ctrl-C reach its line discipline as keys.
func TestShellJobControlOnItsPTY(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			s := outerShell(t)
			s.send(nsrunBin+" -q --isolation "+mode+" -- /bin/bash --norc --noprofile -i", "Enter")
			s.send("PS1='inner$ '", "Enter")
			s.waitFor("inner$")
			s.send("sleep 300 &", "Enter")
			s.send("jobs", "Enter")
			s.waitFor("Running")
			s.send("fg", "Enter")
			s.waitFor("sleep 300\n")
			time.Sleep(200 * time.Millisecond)
			s.send("C-z")
			s.waitFor("Stopped")
			s.send("fg", "Enter")
			time.Sleep(200 * time.Millisecond)
			s.send("C-c")
			s.send("echo rc=$?", "Enter")
			s.waitFor("rc=130")
			s.send("exit 7", "Enter")
			s.waitForPrompt("outer$")
			s.send("echo outer-rc=$?", "Enter")
			s.waitFor("outer-rc=7")
		})
	}
}

// nsrun in the background reads nothing of the caller's terminal: the
// shell keeps every key, a payload that reads its terminal stops the job
// (the shell says so), fg gives it the keys; a payload that does not read
// runs on in the background.
func TestBackgroundNsrunStopsAndTakesNoKeys(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			s := outerShell(t)
			s.send(nsrunBin+" -q --isolation "+mode+" -- sh -c 'sleep 0.2; echo bg-$((2+3))' &", "Enter")
			s.waitFor("bg-5")
			s.send("wait; echo waited-$?", "Enter")
			s.waitFor("waited-0")

			s.send(nsrunBin+" -q --isolation "+mode+" -- sh -c 'read x; echo got-$x' &", "Enter")
			time.Sleep(500 * time.Millisecond)
			// The shell tells of the stopped job at its next prompt.
			s.send("echo typed-$((1+1))", "Enter")
			s.waitFor("typed-2")
			s.waitFor("Stopped")
			s.fgAndAnswer()
		})
	}
}

// Full-screen programs draw, stop with Ctrl-Z, come back with fg, and
// leave the caller's terminal as it was.
func TestFullScreenPrograms(t *testing.T) {
	for _, tool := range []string{"vim", "less"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/setup.sh installs it)", tool)
		}
	}
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			ws := workspace(t)
			var lines []string
			for i := 1; i <= 100; i++ {
				lines = append(lines, "line "+itoa(i))
			}
			writeFile(t, filepath.Join(ws, "text"), strings.Join(lines, "\n")+"\n")
			s := outerShell(t)
			before := s.modes()
			// Not followed by another command on the line: bash goes on
			// with the rest of a list when its job stops.
			s.send(nsrunBin+" -q --isolation "+mode+" --rw "+ws+" -- vim -u NONE -N "+ws+"/note", "Enter")
			s.waitFor("~")
			s.send("ihello from vim", "Escape")
			s.waitFor("hello from vim")
			s.send("C-z")
			s.waitFor("Stopped")
			s.send("clear; fg", "Enter")
			s.waitFor("hello from vim")
			s.send(":wq", "Enter")
			// Keys typed before vim has exited are vim's.
			s.waitForPrompt("outer$")
			s.send("echo vim-rc=$?", "Enter")
			s.waitFor("vim-rc=0")
			expect(t, "the file vim wrote", readFile(t, filepath.Join(ws, "note")), "hello from vim\n")

			s.send("clear; "+nsrunBin+" -q --isolation "+mode+" --ro "+ws+" -- less "+ws+"/text; echo less-rc=$?", "Enter")
			s.waitFor("line 29")
			s.send("G")
			s.waitFor("line 100")
			s.send("q")
			s.waitFor("less-rc=0")
			if after := s.modes(); after != before {
				t.Errorf("the caller's terminal changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// fg continues a stopped payload once, as a shell continues its job: a
// second SIGCONT reaches handlers that do not expect it (vim, redrawing
// from its handler, loses the output that restores its screen).
func TestFgContinuesThePayloadOnce(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			s := outerShell(t)
			for round := 0; round < 3; round++ {
				s.send("clear; "+nsrunBin+" -q --isolation "+mode+" --ro "+filepath.Dir(helperBin)+" -- "+helperBin+" stop-count-cont", "Enter")
				s.waitFor("Stopped")
				s.send("clear; fg", "Enter")
				s.waitFor("continued ")
				s.waitForPrompt("outer$")
				if screen := s.cmd("capture-pane", "-p", "-t", "nsrun"); !strings.Contains(screen, "continued 1\n") {
					t.Fatalf("round %d: the payload was not continued exactly once:\n%s", round, screen)
				}
			}
		})
	}
}

// Terminal multiplexers make ptys of their own in the sandbox's devpts.
// screen gives its pty to the tty group, which the sandbox's user namespace
// does not map, and stops for uid 0: it runs as another uid inside.
func TestMultiplexersInside(t *testing.T) {
	for _, tool := range []string{"tmux", "screen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/setup.sh installs it)", tool)
		}
	}
	s := outerShell(t)
	s.send(nsrunBin+" -q -- tmux -L inner -f /dev/null new-session 'echo inner-tmux-$((6*7)); sleep 1'; echo tmux-rc=$?", "Enter")
	s.waitFor("inner-tmux-42")
	s.waitFor("tmux-rc=0")
	s.send("clear; "+nsrunBin+" -q --uid 1000 -- screen sh -c 'echo in-screen-$((6*7)); sleep 1'; echo screen-rc=$?", "Enter")
	s.waitFor("in-screen-42")
	s.waitFor("screen-rc=0")
}

// TIOCSTI inside reaches only the sandbox's pty, even with seccomp off:
// nothing is typed into the caller's shell.
func TestTIOCSTIReachesOnlyTheSandboxsPTY(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			s := outerShell(t)
			// nsrun's profile refuses TIOCSTI; the Landlock-only mode
			// refuses --seccomp off, so a profile that allows everything
			// stands for it there.
			noFilter := "--seccomp off"
			if mode == "landlock" {
				prof := filepath.Join(t.TempDir(), "allow.json")
				writeFile(t, prof, `{"defaultAction": "SCMP_ACT_ALLOW"}`)
				noFilter = "--seccomp " + prof
			}
			// The byte pushed is '#': typed into the shell, it would make
			// the next command a comment.
			s.send(nsrunBin+" -q --isolation "+mode+" --net host "+noFilter+" --ro "+filepath.Dir(helperBin)+" -- "+helperBin+" tiocsti 0", "Enter")
			s.waitFor("ok")
			// Keys typed before nsrun has exited go to the sandbox's pty,
			// as they would go to an ssh session's.
			s.waitForPrompt("outer$")
			s.send("echo after-$((3*3))", "Enter")
			s.waitFor("after-9")
		})
	}
}

// The caller's terminal gets its modes back however the run ends.
func TestTerminalRestoredOnEveryEnd(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			s := outerShell(t)
			before := s.modes()
			// The shell's line editor sets its modes again once it prompts:
			// the modes are compared then.
			check := func(what string) {
				t.Helper()
				s.waitForPrompt("outer$")
				after := s.modes()
				for deadline := time.Now().Add(2 * time.Second); after != before && time.Now().Before(deadline); after = s.modes() {
					time.Sleep(50 * time.Millisecond)
				}
				if after != before {
					t.Errorf("after %s the caller's terminal changed:\nbefore %s\nafter  %s", what, before, after)
				}
			}
			nsrun := nsrunBin + " -q --isolation " + mode
			s.send(nsrun+" --timeout 1s -- sleep 60; echo timeout-rc=$?", "Enter")
			s.waitFor("timeout-rc=124")
			check("--timeout")
			s.send(nsrun+" -- sh -c 'kill -KILL $$'; echo killed-rc=$?", "Enter")
			s.waitFor("killed-rc=137")
			check("the payload was killed")
			s.send(nsrun+" -- sh -c 'echo running; exec sleep 60'; echo term-rc=$?", "Enter")
			s.waitFor("running")
			if err := syscall.Kill(s.nsrunPid(), syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			s.waitFor("term-rc=143")
			check("nsrun got SIGTERM")
		})
	}
}

// With Landlock alone the host's /dev/pts holds every session's terminal:
// the payload reaches its own pty and no other, not by path, not through
// another process's descriptor in /proc, and it cannot make new ones.
func TestLandlockOnlyItsOwnTerminal(t *testing.T) {
	need(t)
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminals:", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	other := "/dev/pts/" + strconv.Itoa(int(n))
	slave, err := os.OpenFile(other, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	viaProc := "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(int(slave.Fd()))
	// The tries are not refused for want of permission outside.
	for _, p := range []string{other, viaProc, "/dev/ptmx"} {
		if out, err := exec.Command(helperBin, "open", p).Output(); err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Fatalf("open %s outside the sandbox: %s %v", p, out, err)
		}
	}
	for _, tty := range []string{"always", "never"} {
		base := []string{"-q", "--isolation", "landlock", "--ro", filepath.Dir(helperBin), "--tty", tty}
		for _, p := range []string{other, viaProc, "/dev/ptmx"} {
			expect(t, "--tty "+tty+": open "+p, helper(t, base, "open", p), "EACCES")
		}
	}
	r := run(t, "/", "-q", "--isolation", "landlock", "--ro", filepath.Dir(helperBin), "--tty", "always", "--", "sh", "-c", helperBin+" open $(tty)")
	if r.code != 0 || !strings.Contains(r.stdout, "ok") {
		t.Errorf("its own terminal: %v", r)
	}
	// In full isolation the host's ptys are not even there.
	expect(t, "full isolation: open "+other, helper(t, []string{"-q", "--tty", "never"}, "open", other), "ENOENT")
}

// --tty always gives a pipe-fed payload a terminal: input is typed into
// it and ended with the pty's EOF, the output comes back.
func TestTTYAlwaysWithPipes(t *testing.T) {
	need(t)
	for _, mode := range isolations {
		cmd := exec.Command(nsrunBin, "-q", "--isolation", mode, "--tty", "always", "--", "sh", "-c", "tty; test -t 0 && test -t 1 && echo terminals; cat; echo after-eof")
		cmd.Stdin = strings.NewReader("typed\nno newline")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		got := strings.ReplaceAll(string(out), "\r", "")
		for _, want := range []string{"/dev/pts/", "terminals\n", "typed\n", "no newline", "after-eof"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: output %q lacks %q", mode, got, want)
			}
		}
	}
	r := run(t, "/", "--tty", "sometimes", "--", "true")
	if r.code != 125 || !strings.Contains(r.stderr, "--tty") {
		t.Errorf("a bad --tty: %v", r)
	}
	// -v still shows the init's steps when the init's streams are not the
	// caller's.
	r = run(t, "/", "-v", "--tty", "always", "--", "true")
	if r.code != 0 || !strings.Contains(r.stderr, "nsrun: init: terminal /dev/pts/0 allocated") {
		t.Errorf("-v with a terminal: %v", r)
	}
}

// fakeTerminal is the user's terminal played by the test: it holds a pty's
// master, sees what is shown, types, and answers queries when it chooses.
// A shell runs on the slave as its controlling terminal.
type fakeTerminal struct {
	t      *testing.T
	master *os.File
	mu     sync.Mutex
	shown  []byte
}

// newFakeTerminal runs script in sh with args ($0, $1, ...) on a new
// terminal, ended with the test.
func newFakeTerminal(t *testing.T, script string, args ...string) *fakeTerminal {
	t.Helper()
	need(t)
	master, slave, err := pty.Open("/dev/ptmx")
	if err != nil {
		t.Skip("no pseudo-terminals:", err)
	}
	if err := pty.SetSize(int(master.Fd()), 24, 80); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("/bin/sh", append([]string{"-c", script}, args...)...)
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	f := &fakeTerminal{t: t, master: master}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			f.mu.Lock()
			f.shown = append(f.shown, buf[:n]...)
			f.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = sh.Process.Kill()
		_ = sh.Wait()
		master.Close()
	})
	return f
}

// waitFor waits until the screen shows want, and returns all it showed.
func (f *fakeTerminal) waitFor(want string) string {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		f.mu.Lock()
		shown := string(f.shown)
		f.mu.Unlock()
		if strings.Contains(shown, want) {
			return shown
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the terminal never showed %q:\n%q", want, shown)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// send is what the terminal sends: keys typed, or answers.
func (f *fakeTerminal) send(s string) {
	f.t.Helper()
	if _, err := f.master.Write([]byte(s)); err != nil {
		f.t.Fatal(err)
	}
}

// nextLine is the line the shell read after nsrun returned, as the script
// of answersScript shows it.
func (f *fakeTerminal) nextLine() string {
	f.t.Helper()
	shown := f.waitFor(":end")
	_, rest, _ := strings.Cut(shown, "next:")
	line, _, _ := strings.Cut(rest, ":end")
	return line
}

// answersScript runs nsrun ($0) with isolation $1 on payload $2, then
// reads a line as the user's shell would and shows it between next: and
// :end.
const answersScript = `"$0" -q --isolation "$1" -- sh -c "$2"; echo "rc=$? prompt"; IFS= read -r line; printf 'next:%s:end\n' "$line"`

// The payload's queries (cursor position, device attributes, the window
// title) are answered by a terminal a round trip away, after the payload
// has exited: the answers must not reach the next reader of the terminal
// as typed input (the title report would type a command line chosen by
// the payload), and what the user types after the prompt reaches it whole.
func TestLateTerminalAnswersAreNotTyped(t *testing.T) {
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			payload := `printf '\033]2;touch pwned\007\033[6n\033[c\033[21t'; echo bye`
			f := newFakeTerminal(t, answersScript, nsrunBin, mode, payload)
			shown := f.waitFor("bye")
			for _, q := range []string{"\033[6n", "\033[c", "\033[21t"} {
				if !strings.Contains(shown, q) {
					t.Fatalf("the query %q did not reach the terminal: %q", q, shown)
				}
			}
			time.Sleep(200 * time.Millisecond) // a round trip away
			f.send("\033[24;1R\033[?1;2c\033]ltouch pwned\033\\")
			f.waitFor("rc=0 prompt")
			f.send("typed\r")
			if line := f.nextLine(); line != "typed" {
				t.Errorf("the shell read %q after nsrun, not what was typed", line)
			}
		})
	}
}

// A key typed while nsrun waits for answers that never come (a terminal
// that does not know a query) is given back to the terminal, where the
// kernel lets nsrun do so (TIOCSTI: legacy_tiocsti, or CAP_SYS_ADMIN), and
// lost otherwise; the answers that came are not typed.
func TestKeyTypedWhileAnswersAreAwaited(t *testing.T) {
	giveBack := os.Geteuid() == 0
	if b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); err == nil && strings.TrimSpace(string(b)) == "1" {
		giveBack = true
	}
	for _, mode := range isolations {
		t.Run(mode, func(t *testing.T) {
			payload := `printf '\033[6n\033[>q'; echo bye`
			f := newFakeTerminal(t, answersScript, nsrunBin, mode, payload)
			f.waitFor("bye")
			time.Sleep(200 * time.Millisecond)
			// The version query (XTVERSION) stays unanswered.
			f.send("\033[24;1R")
			time.Sleep(50 * time.Millisecond)
			f.send("k")
			f.waitFor("rc=0 prompt")
			f.send("typed\r")
			want := "ktyped"
			if !giveBack {
				want = "typed"
			}
			if line := f.nextLine(); line != want {
				t.Errorf("the shell read %q after nsrun, want %q", line, want)
			}
		})
	}
}
