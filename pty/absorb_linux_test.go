package pty

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// queued is what the terminal's input queue holds, read off it.
func queued(t *testing.T, tty *os.File) string {
	t.Helper()
	n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	if err != nil || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	m, err := unix.Read(int(tty.Fd()), buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:m])
}

func always() bool { return true }

// On a real terminal: the answers awaited are read and dropped, nothing
// past them is read, a key before them ends the reading and is put back
// ahead of what is queued (where the kernel allows it), and nothing is
// read at all when nothing is awaited.
func TestAbsorbOnATerminal(t *testing.T) {
	t.Run("answers", func(t *testing.T) {
		master, tty := openPair(t)
		q := &Queries{}
		q.Output([]byte("\x1b[6n\x1b]11;?\x07"))
		if _, err := master.Write([]byte("\x1b[24;1R\x1b]11;rgb:0/0/0\x1b\\typed")); err != nil {
			t.Fatal(err)
		}
		held, err := Absorb(int(tty.Fd()), q, time.Now().Add(10*time.Second), always)
		if err != nil || len(held) != 0 {
			t.Fatalf("held %q, %v", held, err)
		}
		if got := queued(t, tty); got != "typed" {
			t.Errorf("left %q on the terminal", got)
		}
	})
	t.Run("a key first", func(t *testing.T) {
		master, tty := openPair(t)
		q := &Queries{}
		q.Output([]byte("\x1b[6n"))
		if _, err := master.Write([]byte("\x1b[Arest")); err != nil {
			t.Fatal(err)
		}
		held, err := Absorb(int(tty.Fd()), q, time.Now().Add(10*time.Second), always)
		if err != nil || string(held) != "\x1b[A" {
			t.Fatalf("held %q, %v", held, err)
		}
		err = GiveBack(int(tty.Fd()), held)
		want := "\x1b[Arest"
		if errors.Is(err, ErrCannotGiveBack) {
			// Not this process's controlling terminal: only
			// CAP_SYS_ADMIN may.
			want = "rest"
		} else if err != nil {
			t.Fatal(err)
		}
		if got := queued(t, tty); got != want {
			t.Errorf("the terminal holds %q, want %q", got, want)
		}
	})
	t.Run("nothing awaited", func(t *testing.T) {
		master, tty := openPair(t)
		q := &Queries{}
		q.Output([]byte("\x1b[1mno query\x1b[0m"))
		if _, err := master.Write([]byte("\x1b[24;1R")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		held, err := Absorb(int(tty.Fd()), q, time.Now().Add(10*time.Second), always)
		if err != nil || len(held) != 0 {
			t.Fatalf("held %q, %v", held, err)
		}
		if got := queued(t, tty); got != "\x1b[24;1R" {
			t.Errorf("left %q on the terminal", got)
		}
	})
	t.Run("no answer comes", func(t *testing.T) {
		_, tty := openPair(t)
		q := &Queries{}
		q.Output([]byte("\x1b[>q"))
		held, err := Absorb(int(tty.Fd()), q, time.Now().Add(50*time.Millisecond), always)
		if err != nil || len(held) != 0 {
			t.Fatalf("held %q, %v", held, err)
		}
	})
	t.Run("gate shut", func(t *testing.T) {
		master, tty := openPair(t)
		q := &Queries{}
		q.Output([]byte("\x1b[6n"))
		if _, err := master.Write([]byte("\x1b[24;1R")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		held, err := Absorb(int(tty.Fd()), q, time.Now().Add(10*time.Second), func() bool { return false })
		if err != nil || len(held) != 0 || queued(t, tty) != "\x1b[24;1R" {
			t.Fatalf("read from the terminal with the gate shut: held %q, %v", held, err)
		}
	})
}
