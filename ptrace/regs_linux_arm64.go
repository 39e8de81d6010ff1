package ptrace

import "golang.org/x/sys/unix"

// callArgs reads the arguments of the call a thread is stopped in (at a
// trap's SIGSYS the kernel has rolled x0 back to the first argument).
func callArgs(tid int) ([6]uint64, error) {
	var r unix.PtraceRegsArm64
	if err := unix.PtraceGetRegSetArm64(tid, unix.NT_PRSTATUS, &r); err != nil {
		return [6]uint64{}, err
	}
	return [6]uint64{r.Regs[0], r.Regs[1], r.Regs[2], r.Regs[3], r.Regs[4], r.Regs[5]}, nil
}

// setReturn makes the call a thread trapped in return v.
func setReturn(tid int, v int64) error {
	var r unix.PtraceRegsArm64
	if err := unix.PtraceGetRegSetArm64(tid, unix.NT_PRSTATUS, &r); err != nil {
		return err
	}
	r.Regs[0] = uint64(v)
	return unix.PtraceSetRegSetArm64(tid, unix.NT_PRSTATUS, &r)
}
