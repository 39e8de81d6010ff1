package ptrace

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// ntArmSystemCall is the register set of the call number (NT_ARM_SYSTEM_CALL).
const ntArmSystemCall = 0x404

// setSkip makes the call a thread is stopped in at a seccomp stop return
// v without running: the call number -1 is no call, and the kernel then
// returns what x0 holds.
func setSkip(tid int, v int64) error {
	var r unix.PtraceRegsArm64
	if err := unix.PtraceGetRegSetArm64(tid, unix.NT_PRSTATUS, &r); err != nil {
		return err
	}
	r.Regs[0] = uint64(v)
	if err := unix.PtraceSetRegSetArm64(tid, unix.NT_PRSTATUS, &r); err != nil {
		return err
	}
	nr := int32(-1)
	iov := unix.Iovec{Base: (*byte)(unsafe.Pointer(&nr))}
	iov.SetLen(int(unsafe.Sizeof(nr)))
	if _, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SETREGSET, uintptr(tid), ntArmSystemCall, uintptr(unsafe.Pointer(&iov)), 0, 0); e != 0 {
		return e
	}
	return nil
}
