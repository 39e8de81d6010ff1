package plan

import "github.com/nsrun/nsrun/internal/errs"

// HostProcNotEnforced is what --proc host gives up, for the report.
const HostProcNotEnforced = "private /proc: the /proc nsrun sees is bound read-only (--proc host); it lists the processes outside the sandbox, with their command lines and status, though not their environment, descriptors, memory or root"

// CheckHostProc refuses the host's /proc where Landlock is not there to keep the
// payload out of the /proc entries of processes outside the sandbox: their
// environment, descriptors, memory and root are guarded by ptrace access
// checks, which Landlock confines to the sandbox's own processes, and a
// process of the same user outside would otherwise pass them.
func CheckHostProc(landlockOff bool, l LandlockReport) error {
	if landlockOff {
		return &Error{Err: errs.New("%s needs Landlock, which keeps the payload out of other processes' /proc entries (environment, descriptors, memory, root); it is off", errs.ProcHost)}
	}
	if l.Status != "full" && l.Status != "partial" {
		return &Error{Err: errs.New("%s needs Landlock, which keeps the payload out of other processes' /proc entries (environment, descriptors, memory, root); this kernel has none: %s", errs.ProcHost, l.Reason)}
	}
	return nil
}
