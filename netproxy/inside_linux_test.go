package netproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The factory and its user in one process: the sockets it makes listen,
// accept, connect and carry datagrams; Ready reaches the factory; a
// closed factory is an error, not a hang.
func TestInsideThroughTheFactory(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan error, 1)
	served := make(chan struct{})
	go func() {
		defer close(served)
		ServeSockets(fds[1], func(err error) { ready <- err })
	}()
	in := NewInside(fds[0])
	ln, err := in.Listen(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := in.Dial(ctx, netip.MustParseAddrPort(ln.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(c); string(b) != "hi" {
		t.Errorf("read %q", b)
	}
	c.Close()
	if _, err := in.Dial(ctx, netip.MustParseAddrPort("127.0.0.1:1")); !errors.Is(err, unix.ECONNREFUSED) {
		t.Errorf("dial a closed port: %v", err)
	}
	pc, err := in.ListenPacket(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	u, _ := net.Dial("udp", pc.LocalAddr().String())
	u.Write([]byte("dgram"))
	u.Close()
	buf := make([]byte, 8)
	_ = pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, _, err := pc.ReadFrom(buf); err != nil || string(buf[:n]) != "dgram" {
		t.Errorf("datagram %q %v", buf[:n], err)
	}
	if _, err := in.Listen(netip.MustParseAddrPort("[::1]:0")); err != nil {
		t.Logf("IPv6 loopback: %v", err) // hosts without IPv6
	}
	if err := in.Ready(); err != nil {
		t.Fatal(err)
	}
	if err := <-ready; err != nil {
		t.Fatalf("ready: %v", err)
	}
	in.Close()
	<-served
	if _, err := in.Listen(netip.MustParseAddrPort("127.0.0.1:0")); err == nil {
		t.Error("a closed Inside made a socket")
	}
	unix.Close(fds[1])
}

func TestServeSocketsEndsWithoutReady(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	ready := make(chan error, 1)
	go ServeSockets(fds[1], func(err error) { ready <- err })
	unix.Close(fds[0])
	select {
	case err := <-ready:
		if err == nil {
			t.Error("ready without the other side saying so")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the factory did not notice its peer is gone")
	}
}
