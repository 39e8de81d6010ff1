package ns

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// AddLoopbackAddress gives lo, in the caller's network namespace, the
// address a (as a host route: /32 or /128), so that connections to a stay
// on lo. It needs CAP_NET_ADMIN in the namespace.
func AddLoopbackAddress(a netip.Addr) error {
	lo, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netlink socket: %w", err)
	}
	defer unix.Close(fd)
	ufd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket for lo: %w", err)
	}
	err = unix.IoctlIfreq(ufd, unix.SIOCGIFINDEX, lo)
	unix.Close(ufd)
	if err != nil {
		return fmt.Errorf("ioctl SIOCGIFINDEX lo: %w", err)
	}
	msg := AddrMessage(a, lo.Uint32())
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("netlink RTM_NEWADDR %s: %w", a, err)
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return fmt.Errorf("netlink RTM_NEWADDR %s: %w", a, err)
	}
	return ackError(buf[:n], a)
}

// AddrMessage is an RTM_NEWADDR request for a on the interface index,
// host scope, usable at once (no duplicate address detection), asking
// for an acknowledgement: what AddLoopbackAddress
// sends, and what a runtime-free init sends the same way.
func AddrMessage(a netip.Addr, index uint32) []byte {
	family, raw, flags := byte(unix.AF_INET), a.AsSlice(), byte(0)
	if a.Is6() {
		// Without IFA_F_NODAD an IPv6 address stays tentative until the
		// kernel's duplicate address detection, run later from a work
		// queue, passes it (at once on lo): a bind in that window fails
		// with EADDRNOTAVAIL, as more than half of them did.
		family, flags = unix.AF_INET6, unix.IFA_F_NODAD
	}
	attr := func(typ uint16, data []byte) []byte {
		b := binary.NativeEndian.AppendUint16(nil, uint16(unix.SizeofRtAttr+len(data)))
		b = binary.NativeEndian.AppendUint16(b, typ)
		b = append(b, data...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	body := []byte{family, byte(a.BitLen()), flags, unix.RT_SCOPE_HOST}
	body = binary.NativeEndian.AppendUint32(body, index)
	body = append(body, attr(unix.IFA_LOCAL, raw)...)
	body = append(body, attr(unix.IFA_ADDRESS, raw)...)
	msg := binary.NativeEndian.AppendUint32(nil, uint32(unix.SizeofNlMsghdr+len(body)))
	msg = binary.NativeEndian.AppendUint16(msg, unix.RTM_NEWADDR)
	msg = binary.NativeEndian.AppendUint16(msg, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	msg = binary.NativeEndian.AppendUint32(msg, 1) // sequence
	msg = binary.NativeEndian.AppendUint32(msg, 0) // port: the kernel's
	return append(msg, body...)
}

// ackError reads the kernel's NLMSG_ERROR answer: nil for an
// acknowledgement (error 0).
func ackError(b []byte, a netip.Addr) error {
	if len(b) < unix.SizeofNlMsghdr+4 || binary.NativeEndian.Uint16(b[4:]) != unix.NLMSG_ERROR {
		return fmt.Errorf("netlink RTM_NEWADDR %s: no acknowledgement", a)
	}
	if errno := int32(binary.NativeEndian.Uint32(b[unix.SizeofNlMsghdr:])); errno != 0 {
		return fmt.Errorf("netlink RTM_NEWADDR %s: %w", a, unix.Errno(-errno))
	}
	return nil
}
