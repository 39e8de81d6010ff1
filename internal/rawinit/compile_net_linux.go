package rawinit

import (
	"encoding/binary"
	"net/netip"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/seccomp"
)

// netproxy's socket factory protocol (ServeSockets, Inside): a request is
// reqSocket and a kind, or reqReady alone; the answer is four bytes, 0 or
// an errno (big endian), with the socket.
const (
	reqSocket = 's'
	reqReady  = 'r'
)

// factoryKinds are netproxy's kinds, in order (kindSocket): TCP4, TCP6,
// UDP4, UDP6.
var factoryKinds = [][2]uint32{
	{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC},
	{unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_CLOEXEC},
	{unix.AF_INET, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC},
	{unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC},
}

// The factory's buffer: where each part is, in bytes. The messages'
// addresses are the linker's (Fixup.At).
const (
	cmsgHdr   = unix.SizeofCmsghdr
	cmsgSpace = cmsgHdr + 8 // CMSG_SPACE(4): one descriptor

	facReq        = 0  // the request, 2 bytes read
	facReply      = 8  // the answer, 4 bytes
	facIovIn      = 16 // struct iovec: facReq, 2
	facIovOut     = 32 // struct iovec: facReply, 4
	facCmsgIn     = 48
	facCmsgOut    = facCmsgIn + cmsgSpace // SCM_RIGHTS, the socket at +cmsgHdr
	facMsgIn      = facCmsgOut + cmsgSpace
	facMsgOutFD   = facMsgIn + unix.SizeofMsghdr
	facMsgOutBare = facMsgOutFD + unix.SizeofMsghdr
	facKindTable  = facMsgOutBare + unix.SizeofMsghdr // family, type: uint32 each
	facKinds      = 4
	facSize       = facKindTable + 8*facKinds

	offIov        = 16 // struct msghdr's fields
	offIovLen     = 24
	offControl    = 32
	offControllen = 40
	offFlags      = 48
)

// The buffer of one RTM_NEWADDR: the kernel's struct sockaddr_nl, the
// message, room for the answer.
const (
	nlMsg   = 16
	nlReply = 64
)

// loIndex is lo's interface index: the kernel's LOOPBACK_IFINDEX, lo's in
// every network namespace.
const loIndex = 1

// factory adds the buffer of the socket factory and returns it.
func (b *builder) factory() Arg {
	d := make([]byte, facSize)
	put64 := func(off int, v uint64) { binary.NativeEndian.PutUint64(d[off:], v) }
	put64(facIovIn+8, 2)
	put64(facIovOut+8, 4)
	put64(facCmsgOut, uint64(unix.CmsgLen(4)))
	binary.NativeEndian.PutUint32(d[facCmsgOut+8:], unix.SOL_SOCKET)
	binary.NativeEndian.PutUint32(d[facCmsgOut+12:], unix.SCM_RIGHTS)
	for _, m := range []int{facMsgIn, facMsgOutFD, facMsgOutBare} {
		put64(m+offIovLen, 1)
	}
	put64(facMsgIn+offControllen, cmsgSpace)
	put64(facMsgOutFD+offControllen, cmsgSpace)
	for k, t := range factoryKinds {
		binary.NativeEndian.PutUint32(d[facKindTable+8*k:], t[0])
		binary.NativeEndian.PutUint32(d[facKindTable+8*k+4:], t[1])
	}
	i := len(b.p.Bufs)
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: d, Name: "socket factory", Fixups: []Fixup{
		{Off: facIovIn, Buf: i, At: facReq},
		{Off: facIovOut, Buf: i, At: facReply},
		{Off: facMsgIn + offIov, Buf: i, At: facIovIn},
		{Off: facMsgIn + offControl, Buf: i, At: facCmsgIn},
		{Off: facMsgOutFD + offIov, Buf: i, At: facIovOut},
		{Off: facMsgOutFD + offControl, Buf: i, At: facCmsgOut},
		{Off: facMsgOutBare + offIov, Buf: i, At: facIovOut},
	}})
	return buf(i)
}

// awaitReady serves the factory until nsrun's listeners are in place, as
// the Go init waits for them after its own lockdown and before the
// payload; it returns the factory's buffer, which pid 1 serves from for
// the sandbox's life.
func (b *builder) awaitReady() Arg {
	fac := b.factory()
	b.begin("socket factory: recvmsg")
	recv := b.step
	b.begin("socket factory: sendmsg")
	send := b.step
	b.begin("socket factory")
	b.p.Explain[b.step] = "factory"
	b.add(Op{Code: opServe, Args: [6]Arg{immInt(launch.NetSockFD), fac, immInt(recv), immInt(send)}})
	return fac
}

// loopbackAddrs gives lo the addresses, as the Go init's addLoopbackAddrs
// does: one it cannot add is logged (with verbose) and not fatal.
func (b *builder) loopbackAddrs(addrs []string, verbose bool) {
	var v uintptr
	if verbose {
		v = 1
	}
	for _, s := range addrs {
		a, err := netip.ParseAddr(s)
		if err != nil {
			if verbose {
				b.begin("lo address %s not added: %v", s, err)
				b.add(Op{Code: opNote})
			}
			continue
		}
		b.begin("lo address %s not added: netlink socket", s)
		sockStep := b.step
		b.begin("lo address %s not added: netlink RTM_NEWADDR %s: no acknowledgement", s, a)
		noAck := b.step
		b.begin("lo address %s not added: netlink RTM_NEWADDR %s", s, a)
		msg := ns.AddrMessage(a, loIndex)
		d := make([]byte, nlMsg+len(msg)+nlReply)
		binary.NativeEndian.PutUint16(d, unix.AF_NETLINK)
		copy(d[nlMsg:], msg)
		b.add(Op{Code: opAddAddr, Args: [6]Arg{b.data("RTM_NEWADDR "+s, d), immInt(len(msg)), immInt(sockStep), imm(v), immInt(noAck)}})
	}
}

// auditArch is the AUDIT_ARCH_* of the filters' native calls.
var auditArch = map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}

// factoryRefused names a call of the factory that filters refuse (pid 1
// serves it under them, where the Go init serves it from a thread of its
// own), or "".
func factoryRefused(filters []seccomp.Program) string {
	if len(filters) == 0 {
		return ""
	}
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return "every call"
	}
	type call struct {
		name string
		nr   uintptr
		args [3]uint64
	}
	calls := []call{
		{"recvmsg", unix.SYS_RECVMSG, [3]uint64{launch.NetSockFD, 0, unix.MSG_CMSG_CLOEXEC}},
		{"sendmsg", unix.SYS_SENDMSG, [3]uint64{launch.NetSockFD, 0, unix.MSG_NOSIGNAL}},
		{"close", unix.SYS_CLOSE, [3]uint64{launch.NetSockFD}},
		{"epoll_ctl", unix.SYS_EPOLL_CTL, [3]uint64{0, unix.EPOLL_CTL_ADD, launch.NetSockFD}},
		{"epoll_pwait", unix.SYS_EPOLL_PWAIT, [3]uint64{0, 0, 3}},
	}
	for _, k := range factoryKinds {
		calls = append(calls, call{"socket", unix.SYS_SOCKET, [3]uint64{uint64(k[0]), uint64(k[1])}})
	}
	for _, c := range calls {
		d := seccomp.Data{NR: int32(c.nr), Arch: arch}
		copy(d.Args[:], c.args[:])
		if k := seccomp.ActionOf(seccomp.Decide(filters, d)).Kind; k != seccomp.ActAllow && k != seccomp.ActLog {
			return c.name
		}
	}
	return ""
}

// factoryEnd are netproxy's words for what ends the factory, by the errno
// the init reports them with at the step Program.Explain names "factory".
var factoryEnd = map[syscall.Errno]string{
	syscall.EPIPE:        "fdpass: the other end is closed", // fdpass.ErrClosed
	syscall.EBADMSG:      "malformed request",
	syscall.ETOOMANYREFS: "recvmsg: more than 0 descriptors",
}

// step is the description of step n.
func (i *Init) step(n int) string {
	if n < len(i.prog.Steps) {
		return i.prog.Steps[n]
	}
	return "step " + strconv.Itoa(n)
}
