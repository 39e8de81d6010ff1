package ns

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestAddrMessage(t *testing.T) {
	msg := AddrMessage(netip.MustParseAddr("10.0.0.5"), 1)
	if got := binary.NativeEndian.Uint32(msg); int(got) != len(msg) || len(msg) != unix.SizeofNlMsghdr+unix.SizeofIfAddrmsg+2*(unix.SizeofRtAttr+4) {
		t.Fatalf("length %d of %d", got, len(msg))
	}
	if binary.NativeEndian.Uint16(msg[4:]) != unix.RTM_NEWADDR {
		t.Error("type")
	}
	body := msg[unix.SizeofNlMsghdr:]
	if body[0] != unix.AF_INET || body[1] != 32 || body[3] != unix.RT_SCOPE_HOST || binary.NativeEndian.Uint32(body[4:]) != 1 {
		t.Errorf("ifaddrmsg % x", body[:8])
	}
	if a := body[8+4 : 8+8]; netip.AddrFrom4([4]byte(a)) != netip.MustParseAddr("10.0.0.5") {
		t.Errorf("IFA_LOCAL % x", a)
	}
	six := AddrMessage(netip.MustParseAddr("fd00::5"), 1)
	if body[2] != 0 {
		t.Errorf("IPv4 flags %#x", body[2])
	}
	if body := six[unix.SizeofNlMsghdr:]; body[0] != unix.AF_INET6 || body[1] != 128 || body[2] != unix.IFA_F_NODAD || len(six) != unix.SizeofNlMsghdr+unix.SizeofIfAddrmsg+2*(unix.SizeofRtAttr+16) {
		t.Errorf("IPv6 message % x", six)
	}
}

func TestAckError(t *testing.T) {
	ack := make([]byte, unix.SizeofNlMsghdr+4)
	binary.NativeEndian.PutUint16(ack[4:], unix.NLMSG_ERROR)
	a := netip.MustParseAddr("10.0.0.5")
	if err := ackError(ack, a); err != nil {
		t.Errorf("acknowledgement: %v", err)
	}
	eperm := -int32(unix.EPERM)
	binary.NativeEndian.PutUint32(ack[unix.SizeofNlMsghdr:], uint32(eperm))
	if err := ackError(ack, a); !errors.Is(err, unix.EPERM) {
		t.Errorf("refusal: %v", err)
	}
	if err := ackError(ack[:4], a); err == nil {
		t.Error("a short answer")
	}
}

// An IPv6 address added to lo can be bound at once, in every one of many
// fresh network namespaces: added without IFA_F_NODAD it stayed tentative
// until the kernel's duplicate address detection ran, from a work queue,
// and 114 binds of 200 failed with EADDRNOTAVAIL (the socket factory's
// listeners on ::2 failed so under load).
func TestIPv6AddressUsableAtOnce(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: a Go program cannot unshare a user namespace")
	}
	failed := 0
	var first error
	for range 200 {
		done := make(chan error)
		go func() {
			// The thread ends with the goroutine, and its namespace with it.
			runtime.LockOSThread()
			if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
				done <- err
				return
			}
			if err := LoopbackUp(); err != nil {
				done <- err
				return
			}
			if err := AddLoopbackAddress(netip.MustParseAddr("::2")); err != nil {
				done <- err
				return
			}
			fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				done <- err
				return
			}
			defer unix.Close(fd)
			done <- unix.Bind(fd, &unix.SockaddrInet6{Addr: [16]byte{15: 2}})
		}()
		if err := <-done; err != nil {
			if failed++; first == nil {
				first = err
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d binds of 200 on ::2 just added failed, the first: %v", failed, first)
	}
}
