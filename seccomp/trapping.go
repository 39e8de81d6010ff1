package seccomp

// Trapping is p with every errno action, the default one included, made a
// trap (SECCOMP_RET_TRAP) whose value is mark|errno: the call is refused
// by the kernel as before, and the thread gets SIGSYS instead of the
// errno, which a tracer turns back into the errno after recording the
// call (package ptrace). mark must not overlap any errno (4095 and
// below). Rules keep their order and conditions, so the program decides
// every call as p's would.
func (p Profile) Trapping(mark uint16) Profile {
	trap := func(a Action) Action {
		if a.Kind != ActErrno {
			return a
		}
		return Action{Kind: ActTrap, Errno: mark | a.Errno}
	}
	out := p
	out.DefaultAction = trap(p.DefaultAction)
	out.Rules = make([]Rule, len(p.Rules))
	for i, r := range p.Rules {
		r.Action = trap(r.Action)
		out.Rules[i] = r
	}
	return out
}
