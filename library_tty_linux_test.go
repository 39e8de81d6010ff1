package nsrun

import (
	"bufio"
	"bytes"
	"os"
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
