//go:build linux

package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives an interactive nsrun under a real terminal.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) cmd(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) send(keys ...string) {
	s.cmd(append([]string{"send-keys", "-t", "nsrun"}, keys...)...)
}

// waitFor polls the screen until it contains want.
func (s *tmuxSession) waitFor(want string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.cmd("capture-pane", "-p", "-t", "nsrun")
		if strings.Contains(screen, want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("screen never showed %q:\n%s", want, screen)
}

// newTmux starts command in a detached tmux session of its own, ended
// when the test ends.
func newTmux(t *testing.T, width, height int, command string) *tmuxSession {
	t.Helper()
	need(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, socket: "nsrun-test-" + itoa(time.Now().Nanosecond())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.cmd("new-session", "-d", "-s", "nsrun", "-x", itoa(width), "-y", itoa(height), command)
	return s
}

func TestInteractiveShellJobControl(t *testing.T) {
	ws := workspace(t)
	s := newTmux(t, 80, 24, "env PS1='nsrun$ ' "+nsrunBin+" --rw "+ws+" -- /bin/bash --norc --noprofile -i; echo nsrun-exit=$?; "+
		"echo outside:$(echo | "+helperBin+" tiocsti 2); echo inside:$(echo | "+nsrunBin+" -- "+helperBin+" tiocsti 2); sleep 30")
	s.waitFor("nsrun$")

	s.send("sleep 100 &", "Enter")
	s.send("jobs", "Enter")
	s.waitFor("Running")

	// Ctrl-Z stops the foreground job, and the shell gets the terminal back.
	s.send("sleep 50", "Enter")
	time.Sleep(300 * time.Millisecond)
	s.send("C-z")
	s.waitFor("Stopped")
	s.send("kill %1 %2; echo killed-$?", "Enter")
	s.waitFor("killed-0")

	// Ctrl-C interrupts the foreground job only.
	s.send("sleep 60", "Enter")
	time.Sleep(300 * time.Millisecond)
	s.send("C-c")
	s.send("echo rc=$?", "Enter")
	s.waitFor("rc=130")

	// A window resize reaches the shell's terminal.
	s.cmd("resize-window", "-t", "nsrun", "-x", "100", "-y", "30")
	time.Sleep(200 * time.Millisecond)
	s.send("stty size", "Enter")
	s.waitFor("30 100")

	// The payload has the terminal here; seccomp still refuses TIOCSTI.
	s.send(helperBin+" tiocsti 0", "Enter")
	s.waitFor("EPERM")

	s.send("exit 5", "Enter")
	s.waitFor("nsrun-exit=5")

	// Without the terminal on stdin the sandbox has no controlling
	// terminal, so it cannot push input into the caller's through the
	// terminal it still writes to; the same call outside works.
	if b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); err != nil || strings.TrimSpace(string(b)) == "1" {
		s.waitFor("outside:ok")
	}
	s.waitFor("inside:EPERM")
}

// Ctrl-Z on a payload that is not a shell stops nsrun as a job of the
// caller's shell; fg resumes it with the terminal.
func TestCtrlZStopsAndResumesAPlainPayload(t *testing.T) {
	for _, mode := range []string{"full", "landlock"} {
		t.Run(mode, func(t *testing.T) {
			s := newTmux(t, 100, 30, "env PS1='outer$ ' /bin/bash --norc --noprofile -i")
			s.waitFor("outer$")
			s.send(nsrunBin+" --isolation "+mode+" -- /bin/sh -c 'read line; echo got-$line'", "Enter")
			time.Sleep(500 * time.Millisecond)
			s.send("C-z")
			s.waitFor("Stopped")
			s.send("jobs -l; echo jobs-done", "Enter")
			s.waitFor("jobs-done")
			s.fgAndAnswer()
		})
	}
}

// fgAndAnswer brings back a stopped payload that reads a line and prints
// got-LINE: once it has the terminal again, it reads what is typed.
func (s *tmuxSession) fgAndAnswer() {
	s.t.Helper()
	s.send("fg", "Enter")
	time.Sleep(300 * time.Millisecond)
	s.send("hello", "Enter")
	s.waitFor("got-hello")
	// Keys typed before nsrun has ended are the payload's.
	s.waitForPrompt("outer$")
	s.send("echo rc=$?", "Enter")
	s.waitFor("rc=0")
}
