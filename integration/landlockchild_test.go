//go:build linux

package integration

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The Landlock-only stage's runtime-free child (the default) against its
// Go child (NSRUN_INIT=go), the reference: the same specs, run by both,
// must give the same sandbox, seen from inside (Landlock's answers, the
// supervisor's, capabilities, NO_NEW_PRIVS and the filters, the limits,
// the descriptors) and the same exit status and messages; each answer
// that a missing layer would change is also checked for itself, so that
// two children that both forgot a layer do not agree into a pass.
func TestLandlockOnlyRawChildAgrees(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	writeFile(t, filepath.Join(ws, "noexec.sh"), "#!/bin/sh\n")
	sock := hostSocket(t, "/tmp")
	// A program outside every rule and system directory: Landlock keeps
	// it from running, which the stage explains.
	outside := filepath.Join(workspace(t), "tool")
	writeFile(t, outside, "#!/bin/sh\necho ran\n")
	if err := os.Chmod(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	probe := strings.Join([]string{
		`grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs|Seccomp)' /proc/self/status`,
		`cat /proc/self/limits`,
		`pwd; id; umask`,
		// ls's own (its directory's is 3), not the shell's: the shell
		// holds the pipe's ends until it has started both sides.
		`ls /proc/self/fd | tr '\n' ' '; echo`,
		`touch /etc/landlock-child-probe 2>/dev/null; echo touch /etc: $?`,
		`touch /usr/landlock-child-probe 2>/dev/null; echo touch /usr: $?`,
		`echo hi > ` + ws + `/written && cat ` + ws + `/written`,
		`unshare -r true 2>/dev/null; echo unshare: $?`,
		helperBin + ` dial-unix ` + sock,
		helperBin + ` unix-listen-dial ` + ws + `/own.sock`,
	}, "; ")
	opts := landlockOnly("--rw", ws)
	with := func(extra ...string) []string { return append(append([]string{}, opts...), extra...) }
	cases := []struct {
		name string
		args []string
		want []string // lines the output must hold
		code int
	}{
		{"probe", with("--", "/bin/sh", "-c", probe), []string{
			"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2",
			"touch /etc: 1", "touch /usr: 1", "hi", "unshare: 1", "EACCES", "ok", "0 1 2 ",
		}, 0},
		{"limits", with("--rlimit", "nofile=10:20", "--rlimit", "core=0", "--", "/bin/sh", "-c", "ulimit -n; ulimit -Hn; ulimit -c; ls /proc/self/fd | wc -l"),
			[]string{"10", "20", "0"}, 0},
		{"a limit that leaves no descriptor", with("--rlimit", "nofile=3", "--", "true"), nil, 125},
		{"a limit it may not raise", with("--rlimit", "nofile=1:99999999999", "--", "true"), nil, 125},
		{"exit status", with("--", "/bin/sh", "-c", "exit 3"), nil, 3},
		{"killed by a signal", with("--", "/bin/sh", "-c", "kill -TERM $$"), nil, 143},
		{"found in PATH", with("--", "true"), nil, 0},
		{"not found", with("--", "landlock-child-no-such-command"), nil, 127},
		{"not found by path", with("--", "/nonexistent/x"), nil, 127},
		{"not executable", with("--", ws+"/noexec.sh"), nil, 126},
		{"a directory", with("--", "/usr"), nil, 126},
		{"exec refused by Landlock", with("--", outside), nil, 126},
		{"working directory", with("--chdir", ws, "--", "pwd"), []string{ws}, 0},
		{"orphans are ended", with("--", "/bin/sh", "-c", "sleep 60 & echo started"), []string{"started"}, 0},
	}
	if os.Getuid() == 0 {
		// Only with CAP_SETPCAP is the bounding set emptied.
		cases[0].want = append(cases[0].want, "CapBnd:\t0000000000000000")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			goRun := runBase(t, ws, base, []string{"NSRUN_INIT=go"}, append([]string{"-v"}, c.args...)...)
			rawRun := runBase(t, ws, base, nil, append([]string{"-v"}, c.args...)...)
			if !strings.Contains(rawRun.stderr, "the raw child started") {
				t.Fatalf("the raw child did not run:\n%s", rawRun.stderr)
			}
			if !strings.Contains(goRun.stderr, "the Go child: NSRUN_INIT=go") {
				t.Fatalf("the Go child did not run:\n%s", goRun.stderr)
			}
			goRun.stderr, rawRun.stderr = withoutLog(goRun.stderr), withoutLog(rawRun.stderr)
			if goRun.String() != rawRun.String() {
				t.Errorf("Go child:\n%v\n\nraw child:\n%v\n\n%s", goRun, rawRun, firstDiff(goRun.String(), rawRun.String()))
			}
			if rawRun.code != c.code {
				t.Errorf("exit %d, want %d: %v", rawRun.code, c.code, rawRun)
			}
			lines := strings.Split(rawRun.stdout, "\n")
			for _, w := range c.want {
				found := false
				for _, l := range lines {
					found = found || l == w || (strings.HasSuffix(w, " ") && strings.HasPrefix(l, w))
				}
				if !found {
					t.Errorf("no line %q in:\n%s", w, rawRun.stdout)
				}
			}
		})
	}
}

// TestLandlockOnlyRawChildForwardsSignals: a signal sent to nsrun reaches
// the payload the raw child became, whose handlers were reset (a trap
// runs), and its status comes back; the Go child does the same.
func TestLandlockOnlyRawChildForwardsSignals(t *testing.T) {
	hostABI(t)
	for _, init := range []string{"go", "raw"} {
		cmd := exec.Command(nsrunBin, "--isolation", "landlock", "--", "/bin/sh", "-c", `trap 'exit 7' TERM; echo ready; while :; do sleep 0.1; done`)
		cmd.Env = append(noShims(workspace(t)), "NSRUN_INIT="+init)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "ready\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("%s child: %q instead of ready", init, line)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%s child: the payload did not end on SIGTERM", init)
		}
		if code := cmd.ProcessState.ExitCode(); code != 7 {
			t.Errorf("%s child: exit %d after SIGTERM, want 7 (the payload's trap)", init, code)
		}
	}
}

// TestLandlockOnlyChildChosen: the raw child is the default, NSRUN_INIT=go
// gives the Go child, and a spec the raw child does not run (a terminal,
// the tracer) gets the Go child; -v says which ran, and why.
func TestLandlockOnlyChildChosen(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	for _, c := range []struct {
		name string
		env  []string
		args []string
		say  string
	}{
		{"the default", nil, nil, "the raw child started (the default; NSRUN_INIT=go gives the Go child)"},
		{"go", []string{"NSRUN_INIT=go"}, nil, "the Go child: NSRUN_INIT=go"},
		{"a terminal", nil, []string{"--tty", "always"}, "the Go child: a pseudo-terminal: not supported by the raw init"},
		{"the tracer", nil, []string{"--trace-denials"}, "the Go child: the tracer (--trace-denials) follows the Go child"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"-v", "--isolation", "landlock", "--rw", ws}, c.args...), "--", "/bin/sh", "-c", "echo ran")
			r := runBase(t, ws, base, c.env, args...)
			if r.code != 0 || strings.TrimSpace(strings.ReplaceAll(r.stdout, "\r", "")) != "ran" || !strings.Contains(r.stderr, c.say) {
				t.Errorf("want exit 0, ran, and %q in -v:\n%v", c.say, r)
			}
			if raw := strings.Contains(r.stderr, "the raw child started"); raw == strings.Contains(r.stderr, "the Go child: ") {
				t.Errorf("-v names both children, or neither:\n%s", r.stderr)
			}
		})
	}
}
