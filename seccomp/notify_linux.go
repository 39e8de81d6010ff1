package seccomp

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Notification is a call a filter handed to its listener (struct
// seccomp_notif). The calling thread waits until the listener answers.
type Notification struct {
	ID    uint64
	Pid   uint32 // the calling thread, in the listener's pid namespace
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// seccomp_notif_resp.
type notifResponse struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// LoadNotifying installs prog, which returns SECCOMP_RET_USER_NOTIF for
// some calls, on the calling thread and returns the listener those calls
// go to. Where the kernel can (5.19), a thread whose call the listener has
// received waits for the answer without being interrupted by a signal it
// catches: the listener may already be performing the call, which must
// not then be restarted and done twice.
func LoadNotifying(prog []Instruction) (listener int, killableWait bool, err error) {
	if len(prog) == 0 {
		return -1, false, errors.New("seccomp: empty program")
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, false, fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	load := func(flags uintptr) (int, unix.Errno) {
		fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		return int(fd), errno
	}
	fd, errno := load(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	killableWait = errno == 0
	if errno == unix.EINVAL {
		fd, errno = load(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
	}
	if errno != 0 {
		return -1, false, fmt.Errorf("seccomp SECCOMP_SET_MODE_FILTER with a listener: %w", errno)
	}
	return fd, killableWait, nil
}

// Receive waits for the next notification on listener. ENOENT means the
// caller was interrupted before it could be read; the listener gives
// ENOENT too once no process uses its filter any more.
func Receive(listener int) (Notification, error) {
	var n Notification
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n)))
		if errno == unix.EINTR {
			n = Notification{}
			continue
		}
		if errno != 0 {
			return Notification{}, errno
		}
		return n, nil
	}
}

// Valid reports whether the call of notification id still waits: its
// thread is alive, so its pid still names it.
func Valid(listener int, id uint64) bool {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&id)))
	return errno == 0
}

// Respond ends the call of notification id: it returns val, or fails with
// errno when errno is not 0. ENOENT means the caller is gone or was
// interrupted (and will make its call again).
func Respond(listener int, id uint64, val int64, errno unix.Errno) error {
	r := notifResponse{ID: id, Val: val, Error: -int32(errno)}
	return send(listener, &r)
}

// Continue lets the call of notification id go on in the kernel, with the
// registers it was made with. It is safe only where the registers alone
// decided: what they point to can have changed since it was read.
func Continue(listener int, id uint64) error {
	r := notifResponse{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	return send(listener, &r)
}

// seccomp_notif_addfd.
type notifAddfd struct {
	ID         uint64
	Flags      uint32
	Srcfd      uint32
	Newfd      uint32
	NewfdFlags uint32
}

// RespondFd ends the call of notification id by installing fd (a
// descriptor of the listener's process) in the caller, as the descriptor
// the call returns (5.14, SECCOMP_ADDFD_FLAG_SEND). cloexec sets
// close-on-exec on the caller's copy.
func RespondFd(listener int, id uint64, fd int, cloexec bool) error {
	a := notifAddfd{ID: id, Flags: unix.SECCOMP_ADDFD_FLAG_SEND, Srcfd: uint32(fd)}
	if cloexec {
		a.NewfdFlags = unix.O_CLOEXEC
	}
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_ADDFD, uintptr(unsafe.Pointer(&a)))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}

func send(listener int, r *notifResponse) error {
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(r)))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}
