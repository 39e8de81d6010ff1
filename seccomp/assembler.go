package seccomp

import "fmt"

// label is a place in a program that jumps name before it is known.
type label int

// assembler builds a classic BPF program whose far jumps (BPF_JA, 32-bit
// offsets) name labels; conditional jumps only skip a few instructions, so
// their 8-bit offsets never overflow however long the program grows.
type assembler struct {
	prog   []Instruction
	labels []int         // label → its instruction, -1 until placed
	fixups map[int]label // BPF_JA instruction → where it goes
}

func (as *assembler) emit(in Instruction) { as.prog = append(as.prog, in) }

func (as *assembler) newLabel() label {
	as.labels = append(as.labels, -1)
	return label(len(as.labels) - 1)
}

func (as *assembler) place(l label) { as.labels[l] = len(as.prog) }

func (as *assembler) jumpTo(l label) {
	if as.fixups == nil {
		as.fixups = map[int]label{}
	}
	as.fixups[len(as.prog)] = l
	as.emit(stmt(bpfJa, 0))
}

// program resolves the jumps. BPF only jumps forward.
func (as *assembler) program() (Program, error) {
	if len(as.prog) > maxInstructions {
		return nil, fmt.Errorf("program of %d instructions is over the kernel's %d", len(as.prog), maxInstructions)
	}
	for at, l := range as.fixups {
		to := as.labels[l]
		if to <= at {
			return nil, fmt.Errorf("jump at %d to %d does not go forward", at, to)
		}
		as.prog[at].K = uint32(to - at - 1)
	}
	return Program(as.prog), nil
}

// condition tests one argument, 64 bits wide as two 32-bit halves (BPF
// loads words), and jumps to fail unless it holds; A is clobbered.
func (as *assembler) condition(c Arg, fail label) {
	lo := uint32(offArgs + 8*c.Index)
	hi := lo + 4
	v, w := c.Value, c.ValueTwo
	vh, vl := uint32(v>>32), uint32(v)
	switch c.Op {
	case OpEQ:
		as.equal(hi, vh, 0xffffffff, fail)
		as.equal(lo, vl, 0xffffffff, fail)
	case OpMaskedEq:
		// (arg & Value) == ValueTwo
		if mh, wh := uint32(v>>32), uint32(w>>32); mh != 0 || wh != 0 {
			as.equal(hi, wh, mh, fail)
		}
		as.equal(lo, uint32(w), uint32(v), fail)
	case OpNE:
		// Holds when either half differs.
		as.emit(stmt(bpfLdWAbs, hi))
		as.emit(jump(bpfJeqK, vh, 0, 3))
		as.emit(stmt(bpfLdWAbs, lo))
		as.emit(jump(bpfJeqK, vl, 0, 1))
		as.jumpTo(fail)
	case OpGT, OpGE:
		// hi > vh holds; hi < vh fails; equal: the low halves decide.
		lowJump := uint16(bpfJgtK)
		if c.Op == OpGE {
			lowJump = bpfJgeK
		}
		as.emit(stmt(bpfLdWAbs, hi))
		as.emit(jump(bpfJgtK, vh, 5, 0))
		as.emit(jump(bpfJeqK, vh, 1, 0))
		as.jumpTo(fail)
		as.emit(stmt(bpfLdWAbs, lo))
		as.emit(jump(lowJump, vl, 1, 0))
		as.jumpTo(fail)
	case OpLT, OpLE:
		// hi < vh holds; hi > vh fails; equal: the low halves decide.
		lowJump := uint16(bpfJgeK) // lo >= vl fails a LT
		if c.Op == OpLE {
			lowJump = bpfJgtK
		}
		as.emit(stmt(bpfLdWAbs, hi))
		as.emit(jump(bpfJgeK, vh, 0, 5))
		as.emit(jump(bpfJeqK, vh, 1, 0))
		as.jumpTo(fail)
		as.emit(stmt(bpfLdWAbs, lo))
		as.emit(jump(lowJump, vl, 0, 1))
		as.jumpTo(fail)
	}
}

// equal loads the word at off, masks it unless mask is all ones, and
// jumps to fail unless it equals want.
func (as *assembler) equal(off, want, mask uint32, fail label) {
	as.emit(stmt(bpfLdWAbs, off))
	if mask != 0xffffffff {
		as.emit(stmt(bpfAndK, mask))
	}
	as.emit(jump(bpfJeqK, want, 1, 0))
	as.jumpTo(fail)
}
