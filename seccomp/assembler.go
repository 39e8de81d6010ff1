package seccomp

import "fmt"

// label is a place in a program that jumps name before it is known.
type label int

// fallThrough as a jump target is the next instruction.
const fallThrough label = -1

// node is an instruction whose jump targets, if it jumps, are labels.
type node struct {
	in         Instruction
	jt, jf     label // a conditional jump's targets
	cond       bool
	farT, farF bool // the target is more than 255 instructions on: via a BPF_JA
}

// assembler builds a classic BPF program with symbolic jumps. Conditional
// jumps carry 8-bit offsets; one that must go further goes through a
// BPF_JA (32-bit offset) placed right after it.
type assembler struct {
	nodes  []node
	labels []int // label → its node, -1 until placed
}

func (as *assembler) emit(in Instruction) { as.nodes = append(as.nodes, node{in: in}) }

// branch emits a conditional jump: to jt when it holds, jf otherwise.
func (as *assembler) branch(code uint16, k uint32, jt, jf label) {
	as.nodes = append(as.nodes, node{in: Instruction{Code: code, K: k}, jt: jt, jf: jf, cond: true})
}

func (as *assembler) newLabel() label {
	as.labels = append(as.labels, -1)
	return label(len(as.labels) - 1)
}

func (as *assembler) place(l label) { as.labels[l] = len(as.nodes) }

func (n *node) size() int {
	s := 1
	if n.farT {
		s++
	}
	if n.farF {
		s++
	}
	return s
}

// program lays the nodes out, giving trampolines to the jumps that need
// them (adding one can push others out of reach, so until none changes),
// and resolves every offset. BPF only jumps forward.
func (as *assembler) program() (Program, error) {
	for i, at := range as.labels {
		if at < 0 {
			return nil, fmt.Errorf("label %d never placed", i)
		}
	}
	start := make([]int, len(as.nodes)+1)
	layout := func() {
		for i := range as.nodes {
			start[i+1] = start[i] + as.nodes[i].size()
		}
	}
	dist := func(from int, l label) int { return start[as.labels[l]] - (start[from] + 1) }
	for changed := true; changed; {
		changed = false
		layout()
		for i := range as.nodes {
			n := &as.nodes[i]
			if !n.cond {
				continue
			}
			if n.jt != fallThrough && !n.farT && dist(i, n.jt) > 255 {
				n.farT, changed = true, true
			}
			if n.jf != fallThrough && !n.farF && dist(i, n.jf) > 255 {
				n.farF, changed = true, true
			}
		}
	}
	if start[len(as.nodes)] > maxInstructions {
		return nil, fmt.Errorf("program of %d instructions is over the kernel's %d", start[len(as.nodes)], maxInstructions)
	}
	prog := make(Program, 0, start[len(as.nodes)])
	// offset is how far the instruction at pc jumps to reach l (fallThrough:
	// the next node, past any trampolines).
	offset := func(i, pc int, l label) (int, error) {
		to := start[i+1]
		if l != fallThrough {
			to = start[as.labels[l]]
		}
		if to <= pc {
			return 0, fmt.Errorf("jump at %d to %d does not go forward", pc, to)
		}
		return to - pc - 1, nil
	}
	for i, n := range as.nodes {
		pc := start[i]
		in := n.in
		switch {
		case n.cond:
			tramp := pc + 1
			jt, jf := 0, 0
			var err error
			if n.farT {
				jt, tramp = tramp-pc-1, tramp+1
			} else if jt, err = offset(i, pc, n.jt); err != nil {
				return nil, err
			}
			if n.farF {
				jf = tramp - pc - 1
			} else if jf, err = offset(i, pc, n.jf); err != nil {
				return nil, err
			}
			in.Jt, in.Jf = uint8(jt), uint8(jf)
			prog = append(prog, in)
			for _, far := range []struct {
				on bool
				to label
			}{{n.farT, n.jt}, {n.farF, n.jf}} {
				if !far.on {
					continue
				}
				k, err := offset(i, len(prog), far.to)
				if err != nil {
					return nil, err
				}
				prog = append(prog, stmt(bpfJa, uint32(k)))
			}
		default:
			prog = append(prog, in)
		}
	}
	return prog, nil
}

// acc is what the accumulator holds: the word at off under mask, when ok.
type acc struct {
	ok        bool
	off, mask uint32
}

// load makes A the word at off under mask, loading and masking only what
// it does not already hold.
func (as *assembler) load(off, mask uint32, held acc) acc {
	switch {
	case held.ok && held.off == off && held.mask == mask:
	case held.ok && held.off == off && held.mask == 0xffffffff:
		as.emit(stmt(bpfAndK, mask))
	default:
		as.emit(stmt(bpfLdWAbs, off))
		if mask != 0xffffffff {
			as.emit(stmt(bpfAndK, mask))
		}
	}
	return acc{ok: true, off: off, mask: mask}
}

// condition tests one argument, 64 bits wide as two 32-bit halves (BPF
// loads words): on to pass (fallThrough: the next instruction) when it
// holds, to fail otherwise. held is what A holds before; it returns what A
// holds after, and clean when A holds that on the way to fail too.
func (as *assembler) condition(c Arg, fail, pass label, held acc) (after acc, clean bool) {
	lo := uint32(offArgs + 8*c.Index)
	hi := lo + 4
	v := c.Value
	vh, vl := uint32(v>>32), uint32(v)
	switch c.Op {
	case OpEQ:
		as.load(hi, 0xffffffff, held)
		as.branch(bpfJeqK, vh, fallThrough, fail)
		after = as.load(lo, 0xffffffff, acc{})
		as.branch(bpfJeqK, vl, pass, fail)
		return after, false
	case OpMaskedEq:
		// (arg & Value) == (ValueTwo & Value), as libseccomp reads it: bits
		// of ValueTwo outside the mask cannot make the rule unmatchable.
		w := c.ValueTwo & v
		if vh != 0 {
			held = as.load(hi, vh, held)
			as.branch(bpfJeqK, uint32(w>>32), fallThrough, fail)
			clean = false
		} else {
			clean = true
		}
		if vl != 0 && vl&(vl-1) == 0 && uint32(w) == vl {
			// One bit, which must be set: test it without masking A.
			after = as.load(lo, 0xffffffff, held)
			as.branch(bpfJsetK, vl, pass, fail)
			return after, clean
		}
		after = as.load(lo, vl, held)
		as.branch(bpfJeqK, uint32(w), pass, fail)
		return after, clean
	}
	holds := pass
	if pass == fallThrough {
		holds = as.newLabel()
		defer as.place(holds)
	}
	switch c.Op {
	case OpNE:
		// Holds when either half differs.
		as.load(hi, 0xffffffff, held)
		as.branch(bpfJeqK, vh, fallThrough, holds)
		as.load(lo, 0xffffffff, acc{})
		as.branch(bpfJeqK, vl, fail, holds)
	case OpGT, OpGE, OpLT, OpLE:
		// Where the high halves differ they decide; where they are equal
		// the low halves do. BPF has only > and >=: a < or <= holds where
		// the opposite test fails.
		above := c.Op == OpGT || c.Op == OpGE
		yes, no := holds, fail
		highTest, lowTest := uint16(bpfJgtK), uint16(bpfJgeK)
		if c.Op == OpGT || c.Op == OpLE {
			lowTest = bpfJgtK
		}
		if !above {
			yes, no = fail, holds
			highTest = bpfJgeK
		}
		as.load(hi, 0xffffffff, held)
		if above {
			as.branch(highTest, vh, holds, fallThrough) // hi > vh
		} else {
			as.branch(highTest, vh, fallThrough, holds) // hi < vh
		}
		as.branch(bpfJeqK, vh, fallThrough, fail)
		as.load(lo, 0xffffffff, acc{})
		as.branch(lowTest, vl, yes, no)
	}
	return acc{}, false
}
