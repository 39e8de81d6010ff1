package nsrun

// hostProcNotEnforced is what --proc host gives up, for the report.
const hostProcNotEnforced = "private /proc: the /proc nsrun sees is bound read-only (--proc host); it lists the processes outside the sandbox, with their command lines and status, though not their environment, descriptors, memory or root"

// checkHostProc refuses ProcHost where Landlock is not there to keep the
// payload out of the /proc entries of processes outside the sandbox: their
// environment, descriptors, memory and root are guarded by ptrace access
// checks, which Landlock confines to the sandbox's own processes, and a
// process of the same user outside would otherwise pass them.
func checkHostProc(p *Policy, l LandlockReport) error {
	if p.Proc != ProcHost {
		return nil
	}
	if p.Landlock == LandlockOff {
		return &SetupError{Code: ExitSetup, Msg: "--proc host needs Landlock, which keeps the payload out of other processes' /proc entries (environment, descriptors, memory, root); it is off"}
	}
	if l.Status != "full" && l.Status != "partial" {
		return &SetupError{Code: ExitSetup, Msg: "--proc host needs Landlock, which keeps the payload out of other processes' /proc entries (environment, descriptors, memory, root); this kernel has none: " + l.Reason}
	}
	return nil
}
