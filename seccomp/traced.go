package seccomp

import (
	"errors"
	"fmt"
)

// Traced is prog as a sandbox traced by nsrun loads it: every errno it
// answers, and every trace (which fails with ENOSYS without a tracer), is
// a trace (SECCOMP_RET_TRACE) whose value is that errno, for the tracer
// to refuse the call with after recording it (package ptrace). Where two
// filters answer, the kernel takes the strictest action: traces rank
// below a user notification, so a program that notifies must have the
// others' refusals ahead of it (Ahead). The value only informs: any filter
// of the payload's can answer a trace with any value, so the tracer
// decides by running the untraced programs itself (Decide).
func Traced(prog Program) (Program, error) {
	out := make(Program, len(prog))
	for i, in := range prog {
		switch {
		case in.Code == bpfRetA:
			return nil, errors.New("seccomp program returns a computed value: cannot make it traced")
		case in.Code != bpfRetK:
		case in.K&retActionFull == retErrno:
			in.K = retTrace | uint32(ActionOf(in.K).Errno)
		case in.K&retActionFull == retTrace:
			in.K = retTrace | errENOSYS
		}
		out[i] = in
	}
	return out, nil
}

// Ahead is prog with the programs before ahead of it: it answers a call
// as the first of them that does not allow it (with SECCOMP_RET_ALLOW or
// SECCOMP_RET_LOG) would, and as prog when they all allow it. The kernel
// takes the strictest action of stacked filters, and a user notification
// outranks a trace: a traced sandbox's notifying program (Traced) must
// answer with the others' refusals, or the supervisor would take a call
// they refuse. No program before prog may notify.
func Ahead(prog Program, before ...Program) (Program, error) {
	var out Program
	for _, b := range before {
		if Notifies(b) {
			return nil, errors.New("seccomp: a program ahead of another notifies")
		}
		for i, in := range b {
			if in.Code == bpfRetA {
				return nil, errors.New("seccomp program returns a computed value: cannot put it ahead of another")
			}
			if in.Code == bpfRetK && (in.K&retActionFull == retAllow || in.K&retActionFull == retLog) {
				// On to the next program, which starts right after b.
				in = stmt(bpfJa, uint32(len(b)-i-1))
			}
			out = append(out, in)
		}
	}
	out = append(out, prog...)
	if len(out) > maxInstructions {
		return nil, fmt.Errorf("seccomp: %d instructions with the programs ahead, over the kernel's %d", len(out), maxInstructions)
	}
	return out, nil
}
