//go:build linux

package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// filterOp runs a program under a seccomp filter as a container runtime
// would put it there: "no-clone3 PROG ARG..." answers clone3 with ENOSYS,
// as Docker's default profile does, and allows everything else.
func filterOp(op string, args []string) (string, bool, error) {
	if op != "no-clone3" {
		return "", false, nil
	}
	if len(args) == 0 {
		return "", true, fmt.Errorf("no-clone3: no program")
	}
	if err := refuseClone3(); err != nil {
		return "", true, err
	}
	return "", true, syscall.Exec(args[0], args, os.Environ())
}

// refuseClone3 loads, for every thread, a filter that answers clone3 with
// ENOSYS. Like runc, root with CAP_SYS_ADMIN needs no NO_NEW_PRIVS to load
// it; anyone else does.
func refuseClone3() error {
	arch := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if arch == 0 {
		return fmt.Errorf("no-clone3: no audit arch for %s", runtime.GOARCH)
	}
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 3, K: arch},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 1, K: unix.SYS_CLONE3},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	load := func() syscall.Errno {
		_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
		return errno
	}
	errno := syscall.Errno(unix.EACCES)
	if os.Geteuid() == 0 {
		errno = load()
	}
	// Without CAP_SYS_ADMIN (another user, or root in a container that
	// drops it) the kernel wants NO_NEW_PRIVS first.
	if errno == unix.EACCES {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("no_new_privs: %w", err)
		}
		errno = load()
	}
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
