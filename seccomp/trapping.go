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

// Decide returns the rule of p that decides a call to name with args, as
// Compile resolves a call's rules: the first unconditional rule naming
// it, else the first conditional one whose conditions all hold; ok is
// false when none does and the default action applies.
func (p Profile) Decide(name string, args [6]uint64) (r Rule, ok bool) {
	var conditional []Rule
	for _, rule := range p.Rules {
		if !names(rule, name) {
			continue
		}
		if len(rule.Args) == 0 {
			return rule, true
		}
		conditional = append(conditional, rule)
	}
	for _, rule := range conditional {
		if holds(rule.Args, args) {
			return rule, true
		}
	}
	return Rule{}, false
}

func names(r Rule, name string) bool {
	for _, n := range r.Names {
		if n == name {
			return true
		}
	}
	return false
}

// holds reports whether every condition holds for args, compared on 64
// bits as the compiled program compares them.
func holds(conds []Arg, args [6]uint64) bool {
	for _, c := range conds {
		if c.Index > 5 {
			return false
		}
		v := args[c.Index]
		var ok bool
		switch c.Op {
		case OpNE:
			ok = v != c.Value
		case OpLT:
			ok = v < c.Value
		case OpLE:
			ok = v <= c.Value
		case OpEQ:
			ok = v == c.Value
		case OpGE:
			ok = v >= c.Value
		case OpGT:
			ok = v > c.Value
		case OpMaskedEq:
			ok = v&c.Value == c.ValueTwo&c.Value
		}
		if !ok {
			return false
		}
	}
	return true
}
