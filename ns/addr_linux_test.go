package ns

import (
	"encoding/binary"
	"errors"
	"net/netip"
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
	if body := six[unix.SizeofNlMsghdr:]; body[0] != unix.AF_INET6 || body[1] != 128 || len(six) != unix.SizeofNlMsghdr+unix.SizeofIfAddrmsg+2*(unix.SizeofRtAttr+16) {
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
