package nsrun

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nsrun/nsrun/pty"
)

// TTYAlways gives a payload fed by a reader a terminal: its size is the
// Cmd's WindowSize, the input is typed into it and ended, the output (the
// echo too) comes back to the writer.
func TestLibraryTTYAlwaysWithAReader(t *testing.T) {
	needSandbox(t)
	for _, iso := range []Isolation{IsolationFull, IsolationLandlock} {
		var out bytes.Buffer
		cmd := Command(&Policy{Isolation: iso}, "/bin/sh", "-c", "tty; stty size; read x; echo got-$x; cat; echo eof")
		cmd.TTY, cmd.WindowSize = TTYAlways, WindowSize{Rows: 41, Cols: 123}
		cmd.Stdin, cmd.Stdout = strings.NewReader("hello\nrest"), &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", iso, err, out.String())
		}
		got := strings.ReplaceAll(out.String(), "\r", "")
		for _, want := range []string{"/dev/pts/", "41 123\n", "got-hello\n", "rest", "eof\n"} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: output %q lacks %q", iso, got, want)
			}
		}
		if err := cmd.Resize(WindowSize{Rows: 1, Cols: 1}); err == nil {
			t.Errorf("%v: Resize after the end", iso)
		}
	}
}

// A terminal the caller holds (a pty of its own) is relayed to a pty of the
// sandbox's: the payload never gets the caller's; Signal(SIGWINCH) copies
// the caller's terminal's size and Resize sets one.
func TestLibraryTerminalOfTheCallersOwn(t *testing.T) {
	needSandbox(t)
	master, slave := callerPTY(t)
	if err := pty.SetSize(int(master.Fd()), 20, 70); err != nil {
		t.Fatal(err)
	}
	cmd := Command(nil, "/bin/sh", "-c", "echo tty=$(tty); stty size; read x; stty size; read x; stty size; echo done")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(master)
		for sc.Scan() {
			lines <- strings.TrimRight(sc.Text(), "\r")
		}
		close(lines)
	}()
	next := func(want string) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("output ended before %q", want)
				}
				if l == want {
					return
				}
			case <-timeout:
				t.Fatalf("no line %q", want)
			}
		}
	}
	next("tty=/dev/pts/0")
	next("20 70")
	if err := pty.SetSize(int(master.Fd()), 30, 90); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Signal(syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	if _, err := master.Write([]byte("x\r")); err != nil {
		t.Fatal(err)
	}
	next("30 90")
	if err := cmd.Resize(WindowSize{Rows: 11, Cols: 33}); err != nil {
		t.Fatal(err)
	}
	if _, err := master.Write([]byte("y\r")); err != nil {
		t.Fatal(err)
	}
	next("11 33")
	next("done")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	m, err := pty.GetMode(int(slave.Fd()))
	if err != nil || m.Lflag&syscall.ICANON == 0 {
		t.Errorf("the caller's terminal was left in raw mode: %+v %v", m, err)
	}
}

// TTYNever passes a terminal as it is, in a session without one: the
// sandbox has no controlling terminal, and the caller's pty is not in its
// devpts, so it has no name there.
func TestLibraryTTYNever(t *testing.T) {
	needSandbox(t)
	_, slave := callerPTY(t)
	var out bytes.Buffer
	cmd := Command(nil, "/bin/sh", "-c", "tty; test -t 0 && echo a-terminal; cat /dev/tty 2>/dev/null || echo no-controlling-terminal")
	cmd.TTY, cmd.Stdin, cmd.Stdout = TTYNever, slave, &out
	_ = cmd.Run() // the last command decides the status; the output tells

	got := out.String()
	for _, want := range []string{"not a tty\n", "a-terminal\n", "no-controlling-terminal\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	if err := cmd.Resize(WindowSize{Rows: 1, Cols: 1}); err == nil {
		t.Error("Resize without a pty")
	}
	bad := Command(nil, "/bin/true")
	bad.TTY = TTYMode(7)
	if err := bad.Run(); ExitCode(err) != ExitSetup || !strings.Contains(err.Error(), "tty") {
		t.Errorf("an unknown TTY mode: %v", err)
	}
}

// callerPTY is a pty of the test's own, closed when it ends.
func callerPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, slave, err := pty.Open("/dev/ptmx")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}

// Signal(SIGWINCH) copies the caller's terminal's size to the payload's
// pty under the terminal's lock, as Resize and the terminal's own goroutine
// do: run with -race, calls from two goroutines at once are no data race.
func TestLibrarySignalWINCHWhileResizing(t *testing.T) {
	needSandbox(t)
	master, slave := callerPTY(t)
	if err := pty.SetSize(int(master.Fd()), 20, 70); err != nil {
		t.Fatal(err)
	}
	cmd := Command(nil, "/bin/sh", "-c", "read x; echo done")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, master) }()
	done := make(chan error, 1)
	go func() {
		// Each Resize makes the pty's size differ from the caller's, so
		// each Signal copies it again.
		for i := range 200 {
			if err := cmd.Resize(WindowSize{Rows: uint16(10 + i%5), Cols: 40}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 200 {
		if err := cmd.Signal(syscall.SIGWINCH); err != nil {
			t.Error(err)
			break
		}
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
	if _, err := master.Write([]byte("x\r")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

// Under job control (the caller's terminal is the controlling one of a
// job of its own) the terminal's goroutine follows SIGWINCH and SIGCONT;
// Signal(SIGWINCH) may run beside it, and the end of the run stops it. Run
// with -race: no data race between the two, nor between the end and it.
// The job is this test binary again, started by a shell with job control
// on a pty of the test's.
func TestLibraryJobControlWindowChanges(t *testing.T) {
	if os.Getenv("NSRUN_TEST_JOB") == "1" {
		jobWindowChanges(t)
		return
	}
	needSandbox(t)
	master, slave := callerPTY(t)
	sh := exec.Command("/bin/sh", "-c", `set -m; "$0" -test.run='^TestLibraryJobControlWindowChanges$' -test.count=1 -test.v; echo "job-rc=$?"`, os.Args[0])
	sh.Env = append(os.Environ(), "NSRUN_TEST_JOB=1")
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sh.Wait() }()
	var out strings.Builder
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(master)
		for sc.Scan() {
			lines <- strings.TrimRight(sc.Text(), "\r")
		}
		close(lines)
	}()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			out.WriteString(l + "\n")
			if !ok || strings.HasPrefix(l, "job-rc=") {
				if l != "job-rc=0" || !strings.Contains(out.String(), "\nPASS\n") {
					t.Fatalf("the job failed:\n%s", out.String())
				}
				return
			}
		case <-timeout:
			t.Fatalf("the job did not end:\n%s", out.String())
		}
	}
}

// jobWindowChanges runs a payload while the window changes, as the job.
func jobWindowChanges(t *testing.T) {
	if fg, err := pty.ForegroundOf(0); err != nil || fg != syscall.Getpgrp() {
		t.Fatalf("not in the terminal's foreground: %d %v", fg, err)
	}
	cmd := Command(nil, "/bin/sh", "-c", "sleep 1; stty size")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		// The kernel tells this job (SIGWINCH), and Signal copies too.
		if err := pty.SetSize(0, uint16(20+i%7), 80); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Signal(syscall.SIGWINCH); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}
