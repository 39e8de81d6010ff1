package fdpass

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func pair(t *testing.T) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func TestSendRecv(t *testing.T) {
	a, b := pair(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := Send(a, []byte("hi"), int(w.Fd())); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	n, fds, err := Recv(b, buf, 1)
	if err != nil || n != 2 || string(buf[:n]) != "hi" || len(fds) != 1 {
		t.Fatalf("got %d %q %v %v", n, buf[:n], fds, err)
	}
	// The descriptor is the pipe's write end, close-on-exec.
	got := os.NewFile(uintptr(fds[0]), "w")
	defer got.Close()
	if flags, err := unix.FcntlInt(got.Fd(), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("received descriptor flags %#x %v", flags, err)
	}
	if _, err := got.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	one := make([]byte, 1)
	if _, err := r.Read(one); err != nil || one[0] != 'x' {
		t.Fatalf("read %q %v", one, err)
	}
}

func TestRecvRefusesTooMany(t *testing.T) {
	a, b := pair(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := Send(a, []byte("x"), int(r.Fd()), int(w.Fd())); err != nil {
		t.Fatal(err)
	}
	if _, fds, err := Recv(b, make([]byte, 1), 1); err == nil {
		t.Fatalf("two descriptors accepted where one was allowed: %v", fds)
	}
}

func TestRecvClosed(t *testing.T) {
	a, b := pair(t)
	if err := unix.Shutdown(a, unix.SHUT_RDWR); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Recv(b, make([]byte, 1), 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}
