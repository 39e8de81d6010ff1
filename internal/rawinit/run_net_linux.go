package rawinit

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filtered network's side of the init: the socket factory (netproxy's
// ServeSockets) and lo's addresses (ns.AddLoopbackAddress), over the
// buffers compile_net_linux.go lays out. Child code: nosplit, norace, no
// allocation, no pointer written.

// What serveOne did.
const (
	facServed = iota
	facReady
	facEnded // m.facErr says why
)

// serve is opServe: the factory on fd until nsrun says its listeners are
// in place; a factory that ends first fails the init, as the Go init's
// wait for ready does.
//
//go:nosplit
//go:norace
func (m *machine) serve(a *[6]uintptr, step int32) {
	for {
		switch m.serveOne(a[0], a[1]) {
		case facReady:
			return
		case facEnded:
			s := step
			if m.facErr[1] != 0 {
				s = int32(a[1+m.facErr[1]])
			}
			m.fail(s, uintptr(m.facErr[0]))
		}
	}
}

// serveOne answers one request of the factory on fd, its buffers at off:
// a socket of a kind (its errno, else the socket by SCM_RIGHTS), or
// ready. Anything else ends the factory: m.facErr gets the errno and
// where (0: the factory's own finding, 1: recvmsg, 2: sendmsg).
//
//go:nosplit
//go:norace
func (m *machine) serveOne(fd, off uintptr) int {
	mem := m.mem[off:]
	*(*uint64)(unsafe.Pointer(&mem[facMsgIn+offControllen])) = cmsgSpace
	var n uintptr
	for {
		r, _, e := syscall.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&mem[facMsgIn])), unix.MSG_CMSG_CLOEXEC)
		if e == unix.EINTR {
			continue
		}
		if e == unix.ECONNRESET {
			return m.facEnd(unix.EPIPE, 0)
		}
		if e != 0 {
			return m.facEnd(e, 1)
		}
		n = r
		break
	}
	got := *(*uint64)(unsafe.Pointer(&mem[facMsgIn+offControllen]))
	if n == 0 && got == 0 {
		return m.facEnd(unix.EPIPE, 0) // nsrun closed its end
	}
	if got > 0 {
		// A request carries no descriptor: close what came, and end.
		clen := uintptr(*(*uint64)(unsafe.Pointer(&mem[facCmsgIn])))
		for i := uintptr(cmsgHdr); i+4 <= clen && i+4 <= cmsgSpace; i += 4 {
			syscall.RawSyscall(unix.SYS_CLOSE, uintptr(*(*int32)(unsafe.Pointer(&mem[facCmsgIn+i]))), 0, 0)
		}
		return m.facEnd(unix.ETOOMANYREFS, 0)
	}
	if *(*int32)(unsafe.Pointer(&mem[facMsgIn+offFlags]))&unix.MSG_CTRUNC != 0 {
		return m.facEnd(unix.ETOOMANYREFS, 0)
	}
	if n == 1 && mem[facReq] == reqReady {
		return facReady
	}
	if n != 2 || mem[facReq] != reqSocket {
		return m.facEnd(unix.EBADMSG, 0)
	}
	reply := uint32(unix.EINVAL)
	sock := ^uintptr(0)
	if k := uintptr(mem[facReq+1]); k < facKinds {
		family := uintptr(*(*uint32)(unsafe.Pointer(&mem[facKindTable+8*k])))
		typ := uintptr(*(*uint32)(unsafe.Pointer(&mem[facKindTable+8*k+4])))
		s, _, e := syscall.RawSyscall(unix.SYS_SOCKET, family, typ, 0)
		reply = uint32(e)
		if e == 0 {
			sock = s
		}
	}
	// Big endian, as netproxy reads it.
	mem[facReply], mem[facReply+1], mem[facReply+2], mem[facReply+3] = byte(reply>>24), byte(reply>>16), byte(reply>>8), byte(reply)
	msg := facMsgOutBare
	if sock != ^uintptr(0) {
		*(*int32)(unsafe.Pointer(&mem[facCmsgOut+cmsgHdr])) = int32(sock)
		msg = facMsgOutFD
	}
	var e syscall.Errno
	for {
		_, _, e = syscall.RawSyscall(unix.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&mem[msg])), unix.MSG_NOSIGNAL)
		if e != unix.EINTR {
			break
		}
	}
	if sock != ^uintptr(0) {
		syscall.RawSyscall(unix.SYS_CLOSE, sock, 0, 0)
	}
	switch e {
	case 0:
		return facServed
	case unix.EPIPE, unix.ECONNRESET:
		return m.facEnd(unix.EPIPE, 0)
	}
	return m.facEnd(e, 2)
}

//go:nosplit
//go:norace
func (m *machine) facEnd(e syscall.Errno, where uint32) int {
	m.facErr[0], m.facErr[1] = uint32(e), where
	return facEnded
}

// addAddr is opAddAddr: one RTM_NEWADDR request on a netlink socket of
// its own, as ns.AddLoopbackAddress sends it. A failure is no failure of
// the init: with verbose (a[3]) it is logged, at the step of the netlink
// socket (a[2]), of an answer that is no acknowledgement (a[4]), or of
// the request.
//
//go:nosplit
//go:norace
func (m *machine) addAddr(a *[6]uintptr, step int32) {
	mem := m.mem[a[0]:]
	fd, _, e := syscall.RawSyscall(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if e != 0 {
		m.note(a[3], int32(a[2]), e, true)
		return
	}
	_, _, e = syscall.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&mem[nlMsg])), a[1], 0, uintptr(unsafe.Pointer(&mem[0])), unix.SizeofSockaddrNetlink)
	if e == 0 {
		var n uintptr
		n, _, e = syscall.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&mem[nlMsg+a[1]])), nlReply, 0, 0, 0)
		if e == 0 {
			e = ackErrno(mem[nlMsg+a[1]:], n)
		}
	}
	syscall.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	switch e {
	case 0:
	case nlNoAck:
		m.note(a[3], int32(a[4]), 0, true)
	default:
		m.note(a[3], step, e, true)
	}
}

// nlNoAck stands for an answer that is no acknowledgement.
const nlNoAck = ^syscall.Errno(0)

// ackErrno reads the kernel's NLMSG_ERROR answer of n bytes in b.
//
//go:nosplit
//go:norace
func ackErrno(b []byte, n uintptr) syscall.Errno {
	if n < unix.SizeofNlMsghdr+4 || *(*uint16)(unsafe.Pointer(&b[4])) != unix.NLMSG_ERROR {
		return nlNoAck
	}
	return syscall.Errno(-*(*int32)(unsafe.Pointer(&b[unix.SizeofNlMsghdr])))
}

// note sends a log record of step and errno when verbose is set, with
// the time where timed.
//
//go:nosplit
//go:norace
func (m *machine) note(verbose uintptr, step int32, e syscall.Errno, timed bool) {
	if verbose == 0 {
		return
	}
	m.rec = record{Kind: recLog, Step: uint32(step), Errno: uint32(e)}
	// When, for the parent's timeline (untimed or a failed read: 0, and
	// the parent times it as it reads it).
	if timed {
		if _, _, err := syscall.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&m.now)), 0); err == 0 {
			m.rec.UserUS = m.now.Sec*1e9 + m.now.Nsec
		}
	}
	m.send()
}
