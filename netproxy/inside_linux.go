package netproxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/fdpass"
)

// The socket factory protocol, over a SOCK_SEQPACKET unix socket between
// a process inside a network namespace (ServeSockets) and one outside
// (Inside). A request is two bytes: reqSocket and a kind, or reqReady. The
// answer to reqSocket is four bytes, 0 or an errno, with the socket.
const (
	reqSocket = 's'
	reqReady  = 'r'
)

// Socket kinds a factory makes.
const (
	kindTCP4 byte = iota
	kindTCP6
	kindUDP4
	kindUDP6
)

// ServeSockets makes sockets in the caller's network namespace for the
// process at the other end of sock, until sock closes. It calls ready
// once when that process says its listeners are in place, or with an
// error if sock closes first.
func ServeSockets(sock int, ready func(error)) {
	var once sync.Once
	signal := func(err error) { once.Do(func() { ready(err) }) }
	buf := make([]byte, 2)
	for {
		n, fds, err := fdpass.Recv(sock, buf, 0)
		if err != nil {
			signal(fmt.Errorf("socket factory: %w", err))
			return
		}
		if n == 1 && buf[0] == reqReady {
			signal(nil)
			continue
		}
		if n != 2 || buf[0] != reqSocket || len(fds) != 0 {
			signal(errors.New("socket factory: malformed request"))
			return
		}
		family, typ, ok := kindSocket(buf[1])
		var reply [4]byte
		fd := -1
		if !ok {
			binary.BigEndian.PutUint32(reply[:], uint32(unix.EINVAL))
		} else if fd, err = unix.Socket(family, typ|unix.SOCK_CLOEXEC, 0); err != nil {
			binary.BigEndian.PutUint32(reply[:], uint32(errnoOf(err)))
		}
		if fd >= 0 {
			err = fdpass.Send(sock, reply[:], fd)
			unix.Close(fd)
		} else {
			err = fdpass.Send(sock, reply[:])
		}
		if err != nil {
			signal(fmt.Errorf("socket factory: %w", err))
			return
		}
	}
}

func kindSocket(k byte) (family, typ int, ok bool) {
	switch k {
	case kindTCP4:
		return unix.AF_INET, unix.SOCK_STREAM, true
	case kindTCP6:
		return unix.AF_INET6, unix.SOCK_STREAM, true
	case kindUDP4:
		return unix.AF_INET, unix.SOCK_DGRAM, true
	case kindUDP6:
		return unix.AF_INET6, unix.SOCK_DGRAM, true
	}
	return 0, 0, false
}

func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EIO
}

// Inside is a network namespace reached through a socket factory: sockets
// made there by ServeSockets, bound, listened on and connected from here.
// Binding a port below 1024 needs CAP_NET_BIND_SERVICE in the user
// namespace that owns the network namespace: the owner of a user
// namespace has every capability in it.
type Inside struct {
	mu   sync.Mutex
	sock int
}

// NewInside uses the factory at the other end of sock, which it then owns.
func NewInside(sock int) *Inside { return &Inside{sock: sock} }

// Ready tells the factory the listeners are in place.
func (n *Inside) Ready() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return fdpass.Send(n.sock, []byte{reqReady})
}

// Close closes the socket to the factory.
func (n *Inside) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sock < 0 {
		return nil
	}
	err := unix.Close(n.sock)
	n.sock = -1
	return err
}

// socket asks the factory for a socket for addr (TCP or UDP), made
// non-blocking here.
func (n *Inside) socket(addr netip.Addr, udp bool) (int, error) {
	kind := kindTCP4
	if addr.Is6() {
		kind = kindTCP6
	}
	if udp {
		kind += kindUDP4
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sock < 0 {
		return -1, net.ErrClosed
	}
	if err := fdpass.Send(n.sock, []byte{reqSocket, kind}); err != nil {
		return -1, err
	}
	var reply [4]byte
	got, fds, err := fdpass.Recv(n.sock, reply[:], 1)
	if err != nil {
		return -1, err
	}
	if got != 4 {
		closeFDs(fds)
		return -1, errors.New("socket factory: malformed reply")
	}
	if e := binary.BigEndian.Uint32(reply[:]); e != 0 {
		closeFDs(fds)
		return -1, fmt.Errorf("socket: %w", unix.Errno(e))
	}
	if len(fds) != 1 {
		closeFDs(fds)
		return -1, errors.New("socket factory: no socket came")
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		return -1, err
	}
	return fds[0], nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

func sockaddr(ap netip.AddrPort) unix.Sockaddr {
	if ap.Addr().Is4() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
}

// bound is a socket for addr bound to it.
func (n *Inside) bound(addr netip.AddrPort, udp bool) (*os.File, error) {
	fd, err := n.socket(addr.Addr(), udp)
	if err != nil {
		return nil, err
	}
	if err := unix.Bind(fd, sockaddr(addr)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("bind %s: %w", addr, err)
	}
	return os.NewFile(uintptr(fd), addr.String()), nil
}

// Listen listens on TCP addr inside.
func (n *Inside) Listen(addr netip.AddrPort) (net.Listener, error) {
	f, err := n.bound(addr, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := unix.Listen(int(f.Fd()), unix.SOMAXCONN); err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return net.FileListener(f)
}

// ListenPacket binds UDP addr inside.
func (n *Inside) ListenPacket(addr netip.AddrPort) (net.PacketConn, error) {
	f, err := n.bound(addr, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return net.FilePacketConn(f)
}

// Dial connects to TCP addr inside.
func (n *Inside) Dial(ctx context.Context, addr netip.AddrPort) (net.Conn, error) {
	fd, err := n.socket(addr.Addr(), false)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), addr.String())
	defer f.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = f.SetWriteDeadline(dl)
	} else {
		_ = f.SetWriteDeadline(time.Now().Add(dialTimeout))
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cerr error
	if err := rc.Control(func(fd uintptr) { cerr = unix.Connect(int(fd), sockaddr(addr)) }); err != nil {
		return nil, err
	}
	if cerr == unix.EINPROGRESS {
		cerr = nil
		werr := rc.Write(func(fd uintptr) bool {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			if k, _ := unix.Poll(p, 0); k == 0 {
				return false // not yet: wait until writable
			}
			v, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR)
			if err == nil && v != 0 {
				err = unix.Errno(v)
			}
			cerr = err
			return true
		})
		if werr != nil {
			return nil, fmt.Errorf("connect %s: %w", addr, werr)
		}
	}
	if cerr != nil {
		return nil, fmt.Errorf("connect %s: %w", addr, cerr)
	}
	_ = f.SetWriteDeadline(time.Time{})
	return net.FileConn(f)
}
