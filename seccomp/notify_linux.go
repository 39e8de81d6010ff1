package seccomp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Notification is a call a filter handed to its supervisor (struct
// seccomp_notif). The calling thread waits until the supervisor answers.
type Notification struct {
	ID    uint64
	Pid   uint32 // the calling thread, in the supervisor's PID namespace
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// notifResp is struct seccomp_notif_resp.
type notifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// notifAddfd is struct seccomp_notif_addfd.
type notifAddfd struct {
	ID         uint64
	Flags      uint32
	Srcfd      uint32
	Newfd      uint32
	NewfdFlags uint32
}

// Receive waits for the next call handed over on listener. ENOENT means
// the caller died or was interrupted before it was received: wait for the
// next one.
func Receive(listener int) (Notification, error) {
	var n Notification // the kernel wants it zeroed
	err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
	if err != nil {
		return Notification{}, err
	}
	return n, nil
}

// Valid reports whether the call id still waits for its answer: its
// thread, looked up by pid after Receive, was not replaced meanwhile.
func Valid(listener int, id uint64) bool {
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// Respond ends the call id: it returns val, or fails with errno when
// errno is not 0. ENOENT means the caller is gone or was interrupted (and
// will make its call again).
func Respond(listener int, id uint64, val int64, errno unix.Errno) error {
	r := notifResp{ID: id, Val: val, Error: -int32(errno)}
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
}

// Continue lets the call id go on in the kernel, with the registers it
// was made with. It is safe only where the registers alone decided: what
// they point to can have changed since it was read.
func Continue(listener int, id uint64) error {
	r := notifResp{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
}

// RespondFd ends the call id by installing fd (a descriptor of the
// supervisor's) in the caller, as the descriptor the call returns (5.14,
// SECCOMP_ADDFD_FLAG_SEND). cloexec sets close-on-exec on the caller's
// copy.
func RespondFd(listener int, id uint64, fd int, cloexec bool) error {
	a := notifAddfd{ID: id, Flags: unix.SECCOMP_ADDFD_FLAG_SEND, Srcfd: uint32(fd)}
	if cloexec {
		a.NewfdFlags = unix.O_CLOEXEC
	}
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&a))
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}
