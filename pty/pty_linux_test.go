package pty

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestRaw(t *testing.T) {
	var m Mode
	m.Iflag = unix.ICRNL | unix.IXON | unix.IUTF8
	m.Oflag = unix.OPOST | unix.ONLCR
	m.Lflag = unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	m.Cflag = unix.CS7 | unix.PARENB | unix.CREAD
	r := Raw(m)
	if r.Iflag != unix.IUTF8 || r.Oflag != unix.ONLCR || r.Lflag != 0 || r.Cflag != unix.CS8|unix.CREAD {
		t.Errorf("raw modes %+v", r)
	}
	if r.Cc[unix.VMIN] != 1 || r.Cc[unix.VTIME] != 0 {
		t.Errorf("VMIN %d VTIME %d", r.Cc[unix.VMIN], r.Cc[unix.VTIME])
	}
}

func TestModeRoundTrip(t *testing.T) {
	var m Mode
	m.Iflag, m.Lflag, m.Ispeed = 1, 2, 38400
	m.Cc[unix.VEOF] = 4
	got, err := DecodeMode(EncodeMode(m))
	if err != nil || got != m {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := DecodeMode([]byte{1, 2}); err == nil {
		t.Error("short modes decoded")
	}
}

func TestEOFBytes(t *testing.T) {
	for _, tc := range []struct {
		canon, sent bool
		last        byte
		want        []byte
	}{
		{true, false, 0, []byte{4}},
		{true, true, '\n', []byte{4}},
		{true, true, 'x', []byte{4, 4}},
		{false, true, 'x', nil},
	} {
		if got := EOFBytes(tc.canon, 4, tc.sent, tc.last); !bytes.Equal(got, tc.want) {
			t.Errorf("%+v: got %v", tc, got)
		}
	}
}

// openPair is a pty whose slave is in raw mode, so bytes pass unchanged.
func openPair(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s, err := Open("/dev/ptmx")
	if err != nil {
		t.Skip("no pseudo-terminals here:", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	mode, err := GetMode(int(s.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	raw := Raw(*mode)
	if err := SetMode(int(s.Fd()), &raw); err != nil {
		t.Fatal(err)
	}
	return m, s
}

func TestOpenSizeAndPath(t *testing.T) {
	m, s := openPair(t)
	if !IsTerminal(int(s.Fd())) {
		t.Fatal("the slave is not a terminal")
	}
	if err := SetSize(int(m.Fd()), 33, 121); err != nil {
		t.Fatal(err)
	}
	if rows, cols, err := Size(int(s.Fd())); err != nil || rows != 33 || cols != 121 {
		t.Errorf("size %dx%d %v", rows, cols, err)
	}
	n, err := Index(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := SlavePath(s)
	if err != nil || !strings.HasSuffix(p, "/"+itoa(n)) {
		t.Errorf("slave path %q (index %d): %v", p, n, err)
	}
	if IsControlling(int(s.Fd())) {
		t.Error("a pty opened with O_NOCTTY became the controlling terminal")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Output batches what the slave side writes and ends when the last slave
// is closed, with everything written before it delivered.
func TestOutputDrainsToEndOfFile(t *testing.T) {
	m, s := openPair(t)
	nb, err := NonBlocking(m)
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	var got syncBuffer
	out := StartOutput(nb, &got)
	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	go func() {
		_, _ = s.Write(want)
		s.Close()
	}()
	if err := out.Drain(10*time.Second, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("got %d bytes, want %d", len(got.Bytes()), len(want))
	}
}

// With a slave still open elsewhere, Drain stops once the pty was quiet
// for its idle time.
func TestOutputDrainStopsWhenQuiet(t *testing.T) {
	m, _ := openPair(t)
	nb, err := NonBlocking(m)
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	out := StartOutput(nb, io.Discard)
	done := make(chan struct{})
	go func() { _ = out.Drain(50*time.Millisecond, time.Minute); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Drain never stopped")
	}
}

// The key relay reads nothing while its gate is shut, so keys typed then
// stay for whoever else reads the terminal, and relays them once open.
func TestInputGate(t *testing.T) {
	termMaster, term := openPair(t) // "the caller's terminal": keys typed on termMaster
	ptyMaster, ptySlave := openPair(t)
	nb, err := NonBlocking(ptyMaster)
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	var mu sync.Mutex
	open := false
	in, err := StartInput(int(term.Fd()), nb, func() bool { mu.Lock(); defer mu.Unlock(); return open }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := termMaster.Write([]byte("shell")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	buf := make([]byte, 16)
	n, err := unix.Read(int(term.Fd()), buf)
	if err != nil || string(buf[:n]) != "shell" {
		t.Fatalf("the keys typed while shut: %q %v", buf[:n], err)
	}
	mu.Lock()
	open = true
	mu.Unlock()
	in.Wake()
	if _, err := termMaster.Write([]byte("payload")); err != nil {
		t.Fatal(err)
	}
	_ = ptySlave.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, 7)
	if _, err := io.ReadFull(ptySlave, got); err != nil || string(got) != "payload" {
		t.Fatalf("relayed %q %v", got, err)
	}
	in.Stop()
}

func TestFDPass(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := SendFD(fds[0], w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, err := RecvFD(fds[1], "pipe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := got.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	got.Close()
	b, _ := io.ReadAll(r)
	if string(b) != "x" {
		t.Errorf("read %q through the passed descriptor", b)
	}
	unix.Close(fds[0])
	if _, err := RecvFD(fds[1], "pipe"); err == nil {
		t.Error("received from a closed socket")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Bytes()
}
