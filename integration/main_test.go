//go:build linux

// Package integration drives the built nsrun binary as a user would and
// asserts exact outcomes: the errno inside, the exit status, the host left
// unchanged, no process left behind.
//
// The binaries are built once into a directory outside /tmp (the sandbox's
// /tmp is private, so nothing under the host's /tmp is visible inside).
// NSRUN_BIN and NSRUN_HELPER point at prebuilt ones, which is how the suite
// runs as an unprivileged user. Without user namespaces the tests skip,
// unless NSRUN_INTEGRATION=1 makes that a failure.
package integration

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	nsrunBin  string
	helperBin string
	syscBin   string // testdata/sysc.c, built with gcc
	skipWhy   string
)

func TestMain(m *testing.M) { os.Exit(mainCode(m)) }

func mainCode(m *testing.M) int {
	nsrunBin, helperBin, syscBin = os.Getenv("NSRUN_BIN"), os.Getenv("NSRUN_HELPER"), os.Getenv("NSRUN_SYSC")
	if nsrunBin == "" || helperBin == "" || syscBin == "" {
		dir, err := os.MkdirTemp("/var/tmp", "nsrun-it-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		nsrunBin, helperBin, syscBin = filepath.Join(dir, "nsrun"), filepath.Join(dir, "helper"), filepath.Join(dir, "sysc")
		// nsrun as make build makes it (static, pure Go), and the helper.
		for _, b := range []struct{ out, pkg string }{
			{nsrunBin, "../cmd/nsrun"},
			{helperBin, "./helper"},
		} {
			cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", b.pkg, err, out)
				return 1
			}
		}
		if out, err := exec.Command("gcc", "-O2", "-static", "-o", syscBin, "testdata/sysc.c").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "gcc testdata/sysc.c: %v\n%s", err, out)
			return 1
		}
	}
	if out, err := exec.Command(nsrunBin, "probe").CombinedOutput(); err != nil {
		skipWhy = fmt.Sprintf("this host cannot run sandboxes (%v):\n%s", err, out)
		if os.Getenv("NSRUN_SHAPE") != "" {
			// A container shape that forbids full sandboxes: the container
			// suite runs only the tests that do not need them.
			skipWhy = ""
		} else if os.Getenv("NSRUN_INTEGRATION") == "1" {
			fmt.Fprintln(os.Stderr, "NSRUN_INTEGRATION=1 but", skipWhy)
			return 1
		}
	}
	return m.Run()
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

func need(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

// run starts nsrun with args in dir and waits at most a minute.
func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runEnv(t, dir, nil, args...)
}

func runEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runBase(t, dir, os.Environ(), env, args...)
}

// runBase is runEnv with base instead of this process's environment.
func runBase(t *testing.T, dir string, base, env []string, args ...string) result {
	t.Helper()
	return runFor(t, time.Minute, dir, base, env, args...)
}

// runFor is runBase with a bound other than a minute, for work (a cold
// build) that a loaded machine can stretch past one.
func runFor(t *testing.T, bound time.Duration, dir string, base, env []string, args ...string) result {
	t.Helper()
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, nsrunBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, base...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run nsrun %v: %v", args, err)
	}
	return result{stdout: strings.TrimSpace(stdout.String()), stderr: strings.TrimSpace(stderr.String()), code: code}
}

// helper runs the helper binary inside a sandbox with extra nsrun options
// and returns its one-line answer.
func helper(t *testing.T, opts []string, op string, args ...string) string {
	t.Helper()
	argv := append(append(append([]string{}, opts...), "--", helperBin, op), args...)
	r := run(t, "/", argv...)
	if r.code != 0 {
		t.Fatalf("nsrun %v: %v", argv, r)
	}
	return r.stdout
}

// workspace is a fresh writable directory for one test.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// t.TempDir is 0700; other users' files may go there in some tests.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func expect(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// running is an nsrun started in the background whose payload has printed
// its first line.
type running struct {
	*exec.Cmd
	First  string           // the payload's first line ("" if it never came)
	Out    *bufio.Reader    // the rest of the payload's output
	Stderr *strings.Builder // nsrun's; read it only after Wait
}

// start runs nsrun with args in the background and waits for the payload's
// first line. Callers end it (Process.Kill, Wait).
func start(t *testing.T, args ...string) running {
	t.Helper()
	need(t)
	cmd := exec.Command(nsrunBin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := running{Cmd: cmd, Out: bufio.NewReader(out), Stderr: &strings.Builder{}}
	cmd.Stderr = r.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.First, _ = r.Out.ReadString('\n')
	return r
}

// startReady is start for a payload that prints "ready" once it runs; any
// other first line fails the test, so nothing is asserted about a sandbox
// that did not start.
func startReady(t *testing.T, args ...string) running {
	t.Helper()
	r := start(t, args...)
	if r.First != "ready\n" {
		r.Wait()
		t.Fatalf("nsrun %v: %q instead of ready; %s", args, r.First, r.Stderr)
	}
	return r
}
