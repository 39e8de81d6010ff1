package ptrace

import "golang.org/x/sys/unix"

// callArgs reads the arguments of the call a thread is stopped in (at a
// trap's SIGSYS the kernel has rolled the registers back to the call).
func callArgs(tid int) ([6]uint64, error) {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return [6]uint64{}, err
	}
	return [6]uint64{r.Rdi, r.Rsi, r.Rdx, r.R10, r.R8, r.R9}, nil
}

// setReturn makes the call a thread trapped in return v.
func setReturn(tid int, v int64) error {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return err
	}
	r.Rax = uint64(v)
	return unix.PtraceSetRegs(tid, &r)
}
