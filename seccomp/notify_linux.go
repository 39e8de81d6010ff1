package seccomp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Notification is a call a filter handed to its supervisor (struct
// seccomp_notif). Pid is in the supervisor's PID namespace.
type Notification struct {
	ID    uint64
	Pid   uint32
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

// Receive waits for the next call handed over on listener. ENOENT means
// the caller died before it was received: wait for the next one.
func Receive(listener int) (Notification, error) {
	var n Notification // the kernel wants it zeroed
	err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
	return n, err
}

// Valid reports whether the call id still waits for its answer: its
// process, looked up by pid after Receive, was not replaced meanwhile.
func Valid(listener int, id uint64) bool {
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// Respond ends the call id: it returns val, or fails with errno when
// errno is not 0. ENOENT means the caller is gone (killed meanwhile).
func Respond(listener int, id uint64, val int64, errno unix.Errno) error {
	r := notifResp{ID: id, Val: val, Error: -int32(errno)}
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
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
