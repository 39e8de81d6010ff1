package seccomp

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Load sets NO_NEW_PRIVS and installs filter on the calling thread.
func Load(prog []Instruction) error {
	_, err := load(prog, 0)
	return err
}

// LoadListener is Load for a program that hands calls to a supervisor
// (Notifies): it returns the listener the supervisor receives them on. A
// task tree can have one such program among all its filters (the kernel
// refuses a second with EBUSY). Where the kernel can (5.19), a thread
// whose call the supervisor has received waits for the answer without
// being interrupted by a signal it catches (killableWait): the supervisor
// may already be performing the call, which must not then be restarted
// and done twice.
func LoadListener(prog []Instruction) (listener int, killableWait bool, err error) {
	listener, err = load(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	if errors.Is(err, unix.EINVAL) {
		listener, err = load(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
		return listener, false, err
	}
	return listener, err == nil, err
}

func load(prog []Instruction, flags uintptr) (int, error) {
	if len(prog) == 0 {
		return -1, nil
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return -1, fmt.Errorf("seccomp SECCOMP_SET_MODE_FILTER: %w", errno)
	}
	if flags&unix.SECCOMP_FILTER_FLAG_NEW_LISTENER == 0 {
		return -1, nil
	}
	return int(r), nil
}
