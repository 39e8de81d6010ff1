package ptrace

import "golang.org/x/sys/unix"

// setSkip makes the call a thread is stopped in at a seccomp stop return
// v without running: the call number -1 is no call, and the kernel then
// returns what the return register holds.
func setSkip(tid int, v int64) error {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return err
	}
	r.Orig_rax = ^uint64(0)
	r.Rax = uint64(v)
	return unix.PtraceSetRegs(tid, &r)
}
