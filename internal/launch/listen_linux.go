package launch

import (
	"errors"

	"golang.org/x/sys/unix"
)

// TCP states as the kernel numbers them (tcp_states.h).
const (
	tcpClose  = 7
	tcpListen = 10
)

// PortRange is a range of ports of one protocol, "tcp" or "udp" (the
// library's PortRange).
type PortRange struct {
	Proto       string
	First, Last uint16
}

// PortAllowed says whether a TCP port is among ranges.
func PortAllowed(ranges []PortRange) func(port int) bool {
	return func(port int) bool {
		for _, pr := range ranges {
			if pr.Proto == "tcp" && port >= int(pr.First) && port <= int(pr.Last) {
				return true
			}
		}
		return false
	}
}

// ListenChecked performs listen(sock, backlog) unless sock is a TCP socket
// that is not bound to an allowed port.
func ListenChecked(sock, backlog int, allowed func(int) bool) unix.Errno {
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return ErrnoOf(err)
	}
	typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return ErrnoOf(err)
	}
	if (domain != unix.AF_INET && domain != unix.AF_INET6) || typ != unix.SOCK_STREAM {
		return ErrnoOf(unix.Listen(sock, backlog))
	}
	info, err := unix.GetsockoptTCPInfo(sock, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return ErrnoOf(err)
	}
	port, err := localPort(sock)
	if err != nil {
		return ErrnoOf(err)
	}
	if errno := listenDecision(int(info.State), port, allowed); errno != 0 {
		return errno
	}
	if err := unix.Listen(sock, backlog); err != nil {
		return ErrnoOf(err)
	}
	// A closed TCP socket with a port has it for good (a bind() port;
	// ports of a failed connect are released): only a socket handed in
	// listening, and disconnected meanwhile, could have changed it.
	if now, err := localPort(sock); err != nil || now != port {
		_ = unix.Shutdown(sock, unix.SHUT_RDWR)
		return unix.EACCES
	}
	return 0
}

// listenDecision is 0 when a TCP socket in state with local port may
// listen, or the errno that refuses it: the kernel's own EINVAL for a
// socket neither closed nor listening (which must not be left to the
// kernel: a concurrent disconnect could release its port first), EACCES
// for one not bound (the kernel would pick a port) or bound to a port the
// rules do not allow.
func listenDecision(state, port int, allowed func(int) bool) unix.Errno {
	switch {
	case state != tcpClose && state != tcpListen:
		return unix.EINVAL
	case port == 0, !allowed(port):
		return unix.EACCES
	}
	return 0
}

func localPort(sock int) (int, error) {
	sa, err := unix.Getsockname(sock)
	if err != nil {
		return 0, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port, nil
	case *unix.SockaddrInet6:
		return a.Port, nil
	}
	return 0, unix.EAFNOSUPPORT
}

// ErrnoOf is err's errno, EPERM for an error that has none.
func ErrnoOf(err error) unix.Errno {
	var errno unix.Errno
	if err == nil {
		return 0
	}
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EPERM
}
