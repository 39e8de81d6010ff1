package seccomp

import (
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
// thread can have one such program among all its filters.
func LoadListener(prog []Instruction) (listener int, err error) {
	return load(prog, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
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
