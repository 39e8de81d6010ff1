package seccomp

//go:generate go run ./internal/gensyscalls

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
)

// Compiled is a profile turned into a program for the native architecture.
type Compiled struct {
	Program Program
	// Blocked counts the syscalls the program does not simply allow.
	Blocked int
	// Skipped are calls an allowlist allows that this system cannot name;
	// they stay denied, the safe side.
	Skipped []string
	// Unfiltered are the extra architectures a profile lists: their calls
	// are killed, as every foreign call is, not filtered by its rules.
	Unfiltered []string
}

// maxInstructions is the kernel's BPF_MAXINSNS.
const maxInstructions = 4096

// Compile turns p into a BPF program for the architecture nsrun runs on.
func Compile(p Profile) (*Compiled, error) {
	return compileFor(p, runtime.GOARCH)
}

// syscallRules are a call's rules: one unconditional action, or
// conditional rules that all have the same action, taken when any of them
// holds (the profile's default otherwise). Anything else would depend on
// an order libseccomp and runc do not define the same way, so it is
// refused.
type syscallRules struct {
	conditional []conditionalRule
	always      *Action
}

type conditionalRule struct {
	args   []Arg
	action Action
}

// add records r for the call name, or says why the pair cannot be.
func (sr *syscallRules) add(name string, r Rule) error {
	if len(r.Args) == 0 {
		if sr.always != nil && *sr.always != r.Action {
			return fmt.Errorf("%s has two unconditional rules with different actions (%v, %v)", name, sr.always.Kind, r.Action.Kind)
		}
		act := r.Action
		sr.always = &act
	} else {
		sr.conditional = append(sr.conditional, conditionalRule{args: r.Args, action: r.Action})
	}
	var actions []Action
	if sr.always != nil {
		actions = append(actions, *sr.always)
	}
	for _, c := range sr.conditional {
		actions = append(actions, c.action)
	}
	for _, a := range actions[1:] {
		if a != actions[0] {
			return fmt.Errorf("%s has rules with different actions (%v, %v): which one decides is not defined alike by every runtime", name, actions[0].Kind, a.Kind)
		}
	}
	return nil
}

// compileFor compiles p for goarch (runtime.GOARCH names). The program
// checks the architecture (other ones, and x32 on amd64, are killed), then
// finds the call's rules by binary search on its number.
func compileFor(p Profile, goarch string) (*Compiled, error) {
	a, ok := arches[goarch]
	if !ok {
		return nil, fmt.Errorf("seccomp: no filter for architecture %s", goarch)
	}
	def, err := retValue(p.DefaultAction)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %s: default action: %w", p.Name, err)
	}
	out := &Compiled{Unfiltered: slices.Clone(p.ExtraArches)}
	byNR := map[uint32]*syscallRules{}
	// Calls with a rule that allows (for an allowlist) or restricts (for a
	// denylist), counted for the report.
	counted := map[uint32]bool{}
	for _, r := range p.Rules {
		if _, err := retValue(r.Action); err != nil {
			return nil, fmt.Errorf("seccomp profile %s: %s: %w", p.Name, r.Names, err)
		}
		var seen [6]bool
		for _, arg := range r.Args {
			if arg.Index > 5 || arg.Op < OpNE || arg.Op > OpMaskedEq {
				return nil, fmt.Errorf("seccomp profile %s: %s: bad condition %+v", p.Name, r.Names, arg)
			}
			// libseccomp refuses this too: runc splits such a rule into
			// alternatives, a plain reading makes it a conjunction.
			if seen[arg.Index] {
				return nil, fmt.Errorf("seccomp profile %s: %s: two conditions on argument %d", p.Name, r.Names, arg.Index)
			}
			seen[arg.Index] = true
		}
		for _, name := range r.Names {
			nr, ok := a.syscalls.lookup(name)
			switch {
			case ok:
			case onSomeArch(name):
				// Another architecture's call: there is nothing to allow
				// or deny here.
				continue
			case r.Action.Kind == ActAllow && p.DefaultAction.Kind != ActAllow:
				out.Skipped = append(out.Skipped, name)
				continue
			default:
				return nil, fmt.Errorf("seccomp profile %s: unknown syscall %q", p.Name, name)
			}
			if r.Action == p.DefaultAction {
				// What no rule matches gets this anyway (libseccomp and
				// runc leave such rules out too).
				continue
			}
			sr := byNR[nr]
			if sr == nil {
				sr = &syscallRules{}
				byNR[nr] = sr
			}
			if err := sr.add(name, r); err != nil {
				return nil, fmt.Errorf("seccomp profile %s: %w", p.Name, err)
			}
			if (r.Action.Kind == ActAllow) != (p.DefaultAction.Kind == ActAllow) {
				counted[nr] = true
			}
		}
	}
	out.Blocked = len(counted)
	if p.DefaultAction.Kind != ActAllow {
		out.Blocked = len(a.syscalls) - len(counted)
	}
	nrs := make([]uint32, 0, len(byNR))
	for nr := range byNR {
		nrs = append(nrs, nr)
	}
	sort.Slice(nrs, func(i, j int) bool { return nrs[i] < nrs[j] })

	var as assembler
	as.emit(stmt(bpfLdWAbs, offArch))
	as.emit(jump(bpfJeqK, a.audit, 1, 0))
	as.emit(stmt(bpfRetK, retKillProcess))
	as.emit(stmt(bpfLdWAbs, offNR))
	if a.x32 {
		// x32 numbers have bit 30 set; -1 is no call at all (the kernel
		// answers ENOSYS) and goes on to the rules, as libseccomp lets it.
		native := as.newLabel()
		as.branch(bpfJgeK, x32Bit, fallThrough, native)
		as.branch(bpfJeqK, noCall, native, fallThrough)
		as.emit(stmt(bpfRetK, retKillProcess))
		as.place(native)
	}
	blocks := map[uint32]label{}
	for _, nr := range nrs {
		if len(byNR[nr].conditional) > 0 {
			blocks[nr] = as.newLabel()
		}
	}
	// Calls are searched as runs of consecutive numbers that return the
	// same (Docker's 306 allowed calls are 34 runs); a call with a block
	// is a run of its own.
	var runs []callRun
	for _, nr := range nrs {
		if l, ok := blocks[nr]; ok {
			runs = append(runs, callRun{lo: nr, hi: nr, block: l})
			continue
		}
		ret, _ := retValue(*byNR[nr].always)
		if n := len(runs); n > 0 && runs[n-1].block == noBlock && runs[n-1].ret == ret && runs[n-1].hi == nr-1 {
			runs[n-1].hi = nr
			continue
		}
		runs = append(runs, callRun{lo: nr, hi: nr, ret: ret, block: noBlock})
	}
	var search func(runs []callRun)
	search = func(runs []callRun) {
		if len(runs) > 4 {
			mid := len(runs) / 2
			upper := as.newLabel()
			as.branch(bpfJgeK, runs[mid].lo, upper, fallThrough)
			search(runs[:mid])
			as.place(upper)
			search(runs[mid:])
			return
		}
		// Checked in order, each run against what the earlier ones left:
		// below a run's start is a gap, the default. A plain run jumps to
		// its return, one per value for the group, just below.
		deflt := as.newLabel()
		rets := map[uint32]label{}
		var order []uint32
		for _, r := range runs {
			to := r.block
			if to == noBlock {
				var ok bool
				if to, ok = rets[r.ret]; !ok {
					to = as.newLabel()
					rets[r.ret] = to
					order = append(order, r.ret)
				}
			}
			if r.lo == r.hi {
				as.branch(bpfJeqK, r.lo, to, fallThrough)
				continue
			}
			next := as.newLabel()
			as.branch(bpfJgtK, r.hi, next, fallThrough)
			as.branch(bpfJgeK, r.lo, to, deflt)
			as.place(next)
		}
		as.place(deflt)
		as.emit(stmt(bpfRetK, def))
		for _, ret := range order {
			as.place(rets[ret])
			as.emit(stmt(bpfRetK, ret))
		}
	}
	search(runs)
	for _, nr := range nrs {
		l, ok := blocks[nr]
		if !ok {
			continue
		}
		as.place(l)
		sr := byNR[nr]
		// The rules of one call share their action (add refuses others):
		// whichever holds jumps to its one return.
		match := as.newLabel()
		var held acc
		for _, cr := range sr.conditional {
			next := as.newLabel()
			clean := false
			for i, arg := range cr.args {
				pass := fallThrough
				if i == len(cr.args)-1 {
					pass = match
				}
				held, clean = as.condition(arg, next, pass, held)
			}
			as.place(next)
			// The next rule starts where this one failed: what A holds
			// there is known only after a single clean condition.
			if len(cr.args) != 1 || !clean {
				held = acc{}
			}
		}
		ret := def
		if sr.always != nil {
			ret, _ = retValue(*sr.always)
		}
		as.emit(stmt(bpfRetK, ret))
		as.place(match)
		ret, _ = retValue(sr.conditional[0].action)
		as.emit(stmt(bpfRetK, ret))
	}
	prog, err := as.program()
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %s: %w", p.Name, err)
	}
	out.Program = prog
	return out, nil
}

// callRun is a run of consecutive call numbers that return ret, or one
// call that jumps to its block.
type callRun struct {
	lo, hi uint32
	ret    uint32
	block  label
}

// noBlock marks a run that returns without a block.
const noBlock label = -2

// retValue is the SECCOMP_RET_* value of an action.
func retValue(a Action) (uint32, error) {
	switch a.Kind {
	case ActAllow:
		return retAllow, nil
	case ActErrno:
		return retErrno | uint32(a.Errno), nil
	case ActKillProcess:
		return retKillProcess, nil
	case ActKillThread:
		return retKillThread, nil
	case ActTrap:
		return retTrap, nil
	case ActTrace:
		return retTrace | uint32(a.Errno), nil
	case ActLog:
		return retLog, nil
	case ActNotify:
		return retUserNotif, nil
	}
	return 0, fmt.Errorf("unknown action %v", a.Kind)
}
