package launch

import (
	"net"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestListenDecision(t *testing.T) {
	allowed := func(p int) bool { return p == 8080 }
	for _, tc := range []struct {
		state, port int
		want        unix.Errno
	}{
		{tcpClose, 8080, 0},
		{tcpListen, 8080, 0},
		{tcpClose, 0, unix.EACCES},    // never bound: the kernel would pick the port
		{tcpClose, 9090, unix.EACCES}, // bound, but not by a rule (a socket handed in)
		{1, 8080, unix.EINVAL},        // established
		{2, 40000, unix.EINVAL},       // connecting: a failed connect would release the port
	} {
		if got := listenDecision(tc.state, tc.port, allowed); got != tc.want {
			t.Errorf("state %d port %d: %v, want %v", tc.state, tc.port, got, tc.want)
		}
	}
}

// listenChecked on real sockets: what the supervisor does with each kind.
func TestListenChecked(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port
	free := func() int {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	allowedPort := free()
	allowed := func(p int) bool { return p == allowedPort }
	sock := func(domain, typ int) int {
		fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		return fd
	}
	listening := func(fd int) bool {
		v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
		return err == nil && v == 1
	}

	unbound := sock(unix.AF_INET, unix.SOCK_STREAM)
	if got := ListenChecked(unbound, 1, allowed); got != unix.EACCES || listening(unbound) {
		t.Errorf("unbound: %v, listening %v", got, listening(unbound))
	}
	bound := sock(unix.AF_INET, unix.SOCK_STREAM)
	if err := unix.Bind(bound, &unix.SockaddrInet4{Port: allowedPort, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if got := ListenChecked(bound, 1, allowed); got != 0 || !listening(bound) {
		t.Errorf("bound to an allowed port: %v, listening %v", got, listening(bound))
	}
	if got := ListenChecked(bound, 8, allowed); got != 0 {
		t.Errorf("listen again (a new backlog): %v", got)
	}
	other := sock(unix.AF_INET6, unix.SOCK_STREAM)
	if err := unix.Bind(other, &unix.SockaddrInet6{Port: free(), Addr: [16]byte{15: 1}}); err != nil {
		t.Fatal(err)
	}
	if got := ListenChecked(other, 1, allowed); got != unix.EACCES || listening(other) {
		t.Errorf("bound to another port: %v", got)
	}
	connected := sock(unix.AF_INET, unix.SOCK_STREAM)
	if err := unix.Connect(connected, &unix.SockaddrInet4{Port: taken, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if got := ListenChecked(connected, 1, allowed); got != unix.EINVAL {
		t.Errorf("connected: %v", got)
	}
	udp := sock(unix.AF_INET, unix.SOCK_DGRAM)
	if got := ListenChecked(udp, 1, allowed); got != unix.EOPNOTSUPP {
		t.Errorf("udp: %v", got)
	}
	us := sock(unix.AF_UNIX, unix.SOCK_STREAM)
	if err := unix.Bind(us, &unix.SockaddrUnix{Name: filepath.Join(t.TempDir(), "s")}); err != nil {
		t.Fatal(err)
	}
	if got := ListenChecked(us, 1, allowed); got != 0 || !listening(us) {
		t.Errorf("unix: %v", got)
	}
	if got := ListenChecked(int(^uint(0)>>1), 1, allowed); got != unix.EBADF {
		t.Errorf("bad descriptor: %v", got)
	}
}
