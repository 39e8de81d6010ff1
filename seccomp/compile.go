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
	// Dropped are rules that do not decide because an unconditional rule
	// for the same call comes first, as libseccomp resolves them.
	Dropped []string
}

// maxInstructions is the kernel's BPF_MAXINSNS.
const maxInstructions = 4096

// Compile turns p into a BPF program for the architecture nsrun runs on.
func Compile(p Profile) (*Compiled, error) {
	return compileFor(p, runtime.GOARCH)
}

// syscallRules are a call's rules, resolved as libseccomp resolves them
// for runc and crun, which add a profile's rules to it in order: the first
// unconditional rule decides (a later one, or a conditional rule before or
// after it, is dropped); otherwise the conditional rules, of which any
// that holds decides. Conditional rules with different actions are kept
// only when no arguments satisfy two of them; which one libseccomp lets
// win otherwise depends on how it merges their trees, so nsrun refuses.
type syscallRules struct {
	conditional []conditionalRule
	always      *Action
	// dropped are rules with another action than the one that decides.
	dropped []Action
}

type conditionalRule struct {
	args   []Arg
	action Action
}

// add records r for the call.
func (sr *syscallRules) add(r Rule) {
	switch {
	case sr.always != nil:
		if r.Action != *sr.always {
			sr.dropped = append(sr.dropped, r.Action)
		}
	case len(r.Args) == 0:
		act := r.Action
		sr.always = &act
		for _, c := range sr.conditional {
			if c.action != act {
				sr.dropped = append(sr.dropped, c.action)
			}
		}
		sr.conditional = nil
	default:
		sr.conditional = append(sr.conditional, conditionalRule{args: r.Args, action: r.Action})
	}
}

// check refuses conditional rules with different actions that can hold
// together.
func (sr *syscallRules) check(name string) error {
	for i, a := range sr.conditional {
		for _, b := range sr.conditional[i+1:] {
			if a.action != b.action && !disjoint(a.args, b.args) {
				return fmt.Errorf("%s has rules with different actions (%v, %v) whose conditions can hold together: which one decides then depends on how libseccomp merges them", name, a.action.Kind, b.action.Kind)
			}
		}
	}
	return nil
}

// actions are the actions the call can end with.
func (sr *syscallRules) actions() []Action {
	if sr.always != nil {
		return []Action{*sr.always}
	}
	var out []Action
	for _, c := range sr.conditional {
		out = append(out, c.action)
	}
	return out
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
	nameOf := map[uint32]string{}
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
				nameOf[nr] = name
			}
			sr.add(r)
		}
	}
	nrs := make([]uint32, 0, len(byNR))
	for nr := range byNR {
		nrs = append(nrs, nr)
	}
	sort.Slice(nrs, func(i, j int) bool { return nrs[i] < nrs[j] })
	// Calls that some rule lets through (for an allowlist) or restricts
	// (for a denylist), counted for the report.
	counted := 0
	for _, nr := range nrs {
		sr := byNR[nr]
		if err := sr.check(nameOf[nr]); err != nil {
			return nil, fmt.Errorf("seccomp profile %s: %w", p.Name, err)
		}
		for _, d := range sr.dropped {
			out.Dropped = append(out.Dropped, fmt.Sprintf("%s: a rule with action %s (the first unconditional rule decides)", nameOf[nr], describeAction(d)))
		}
		for _, act := range sr.actions() {
			if (act.Kind == ActAllow) != (p.DefaultAction.Kind == ActAllow) {
				counted++
				break
			}
		}
	}
	out.Blocked = counted
	if p.DefaultAction.Kind != ActAllow {
		out.Blocked = len(a.syscalls) - counted
	}

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
		// Whichever rule holds jumps to the return of its action (check
		// made sure no two rules with different actions can hold).
		matches := map[Action]label{}
		var order []Action
		var held acc
		for _, cr := range sr.conditional {
			match, ok := matches[cr.action]
			if !ok {
				match = as.newLabel()
				matches[cr.action] = match
				order = append(order, cr.action)
			}
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
		as.emit(stmt(bpfRetK, def))
		for _, act := range order {
			as.place(matches[act])
			ret, _ := retValue(act)
			as.emit(stmt(bpfRetK, ret))
		}
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
		return retTrap | uint32(a.Errno), nil
	case ActTrace:
		return retTrace | uint32(a.Errno), nil
	case ActLog:
		return retLog, nil
	case ActNotify:
		return retUserNotif, nil
	}
	return 0, fmt.Errorf("unknown action %v", a.Kind)
}
