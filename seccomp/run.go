package seccomp

import (
	"encoding/binary"
	"fmt"
)

// Data is a call as a filter sees it (struct seccomp_data).
type Data struct {
	NR   int32
	Arch uint32 // AUDIT_ARCH_*
	IP   uint64 // the address of the call instruction's successor
	Args [6]uint64
}

// bytes lays d out as the kernel does (little endian on every
// architecture nsrun supports).
func (d Data) bytes() [dataSize]byte {
	var b [dataSize]byte
	binary.LittleEndian.PutUint32(b[offNR:], uint32(d.NR))
	binary.LittleEndian.PutUint32(b[offArch:], d.Arch)
	binary.LittleEndian.PutUint64(b[8:], d.IP)
	for i, a := range d.Args {
		binary.LittleEndian.PutUint64(b[offArgs+8*i:], a)
	}
	return b
}

// dataSize is sizeof(struct seccomp_data).
const dataSize = 64

// Classic BPF opcodes beyond the ones the compiler emits (bpf.go), as
// the kernel's seccomp_check_filter accepts them.
const (
	bpfLdImm  = 0x00 // BPF_LD | BPF_IMM
	bpfLdMem  = 0x60 // BPF_LD | BPF_MEM
	bpfLdLen  = 0x80 // BPF_LD | BPF_W | BPF_LEN
	bpfLdxImm = 0x01
	bpfLdxMem = 0x61
	bpfLdxLen = 0x81
	bpfSt     = 0x02
	bpfStx    = 0x03
	bpfRetA   = 0x16
	bpfTax    = 0x07
	bpfTxa    = 0x87

	classALU = 0x04
	classJMP = 0x05
	srcX     = 0x08
	opMask   = 0xf0
	memWords = 16 // BPF_MEMWORDS
)

// ALU operations (BPF_OP).
const (
	aluAdd = 0x00
	aluSub = 0x10
	aluMul = 0x20
	aluDiv = 0x30
	aluOr  = 0x40
	aluAnd = 0x50
	aluLsh = 0x60
	aluRsh = 0x70
	aluNeg = 0x80
	aluXor = 0xa0
)

// Jumps (BPF_OP).
const (
	jmpJa   = 0x00
	jmpJeq  = 0x10
	jmpJgt  = 0x20
	jmpJge  = 0x30
	jmpJset = 0x40
)

// Check reports whether p is a program Run can run: instructions the
// kernel accepts in a seccomp filter (without BPF_MOD), every jump and
// memory slot in range, loads aligned inside struct seccomp_data, and a
// return at the end.
func (p Program) Check() error {
	if len(p) == 0 || len(p) > maxInstructions {
		return fmt.Errorf("seccomp program of %d instructions", len(p))
	}
	for pc, in := range p {
		if err := checkInstruction(in, len(p)-pc-1); err != nil {
			return fmt.Errorf("seccomp program, instruction %d (%#x %d %d %#x): %w", pc, in.Code, in.Jt, in.Jf, in.K, err)
		}
	}
	if last := p[len(p)-1].Code; last != bpfRetK && last != bpfRetA {
		return fmt.Errorf("seccomp program does not end with a return")
	}
	return nil
}

// checkInstruction checks in, with left instructions after it.
func checkInstruction(in Instruction, left int) error {
	switch in.Code {
	case bpfLdWAbs:
		if in.K%4 != 0 || in.K >= dataSize {
			return fmt.Errorf("load outside struct seccomp_data")
		}
		return nil
	case bpfLdImm, bpfLdLen, bpfLdxImm, bpfLdxLen, bpfRetK, bpfRetA, bpfTax, bpfTxa:
		return nil
	case bpfLdMem, bpfLdxMem, bpfSt, bpfStx:
		if in.K >= memWords {
			return fmt.Errorf("memory slot out of range")
		}
		return nil
	}
	switch in.Code &^ (opMask | srcX) {
	case classALU:
		switch in.Code & opMask {
		case aluAdd, aluSub, aluMul, aluOr, aluAnd, aluLsh, aluRsh, aluXor:
			return nil
		case aluDiv:
			if in.Code&srcX == 0 && in.K == 0 {
				return fmt.Errorf("division by zero")
			}
			return nil
		case aluNeg:
			if in.Code == classALU|aluNeg {
				return nil
			}
		}
	case classJMP:
		switch in.Code & opMask {
		case jmpJa:
			if in.Code == bpfJa && int64(in.K) < int64(left) {
				return nil
			}
			return fmt.Errorf("jump out of the program")
		case jmpJeq, jmpJgt, jmpJge, jmpJset:
			if int(in.Jt) >= left || int(in.Jf) >= left {
				return fmt.Errorf("jump out of the program")
			}
			return nil
		}
	}
	return fmt.Errorf("instruction not allowed in a seccomp filter")
}

// Run is what p answers for call d. p must have passed Check: an
// instruction it would refuse makes Run answer SECCOMP_RET_KILL_PROCESS.
func (p Program) Run(d Data) uint32 {
	data := d.bytes()
	var a, x uint32
	var mem [memWords]uint32
	for pc := 0; pc < len(p); pc++ {
		in := p[pc]
		switch in.Code {
		case bpfLdWAbs:
			if in.K%4 != 0 || in.K >= dataSize {
				return retKillProcess
			}
			a = binary.LittleEndian.Uint32(data[in.K:])
			continue
		case bpfLdImm:
			a = in.K
			continue
		case bpfLdLen:
			a = dataSize
			continue
		case bpfLdxImm:
			x = in.K
			continue
		case bpfLdxLen:
			x = dataSize
			continue
		case bpfLdMem, bpfLdxMem, bpfSt, bpfStx:
			if in.K >= memWords {
				return retKillProcess
			}
			switch in.Code {
			case bpfLdMem:
				a = mem[in.K]
			case bpfLdxMem:
				x = mem[in.K]
			case bpfSt:
				mem[in.K] = a
			default:
				mem[in.K] = x
			}
			continue
		case bpfTax:
			x = a
			continue
		case bpfTxa:
			a = x
			continue
		case bpfRetK:
			return in.K
		case bpfRetA:
			return a
		}
		src := in.K
		if in.Code&srcX != 0 {
			src = x
		}
		switch in.Code &^ (opMask | srcX) {
		case classALU:
			var ok bool
			if a, ok = alu(in.Code&opMask, a, src); !ok {
				return 0 // the kernel's answer to a division by zero
			}
		case classJMP:
			if in.Code&opMask == jmpJa {
				pc += int(in.K)
				continue
			}
			if jumps(in.Code&opMask, a, src) {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		default:
			return retKillProcess
		}
	}
	return retKillProcess
}

// alu is a op b; false for a division by zero.
func alu(op uint16, a, b uint32) (uint32, bool) {
	switch op {
	case aluAdd:
		return a + b, true
	case aluSub:
		return a - b, true
	case aluMul:
		return a * b, true
	case aluDiv:
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case aluOr:
		return a | b, true
	case aluAnd:
		return a & b, true
	case aluLsh:
		return a << (b & 31), true
	case aluRsh:
		return a >> (b & 31), true
	case aluNeg:
		return -a, true
	case aluXor:
		return a ^ b, true
	}
	return 0, false
}

func jumps(op uint16, a, b uint32) bool {
	switch op {
	case jmpJeq:
		return a == b
	case jmpJgt:
		return a > b
	case jmpJge:
		return a >= b
	}
	return a&b != 0
}

// retActionFull is SECCOMP_RET_ACTION_FULL.
const retActionFull = 0xffff0000

// Decide is what the kernel answers call d with filters loaded in that
// order (oldest first): the strictest action of all, and between equal
// actions the newest filter's value. Each program must have passed Check.
func Decide(filters []Program, d Data) uint32 {
	ret := uint32(retAllow)
	for i := len(filters) - 1; i >= 0; i-- {
		cur := filters[i].Run(d)
		if int32(cur&retActionFull) < int32(ret&retActionFull) {
			ret = cur
		}
	}
	return ret
}

// ActionOf is the action a SECCOMP_RET_* value names, with its
// value (the errno of ActErrno, at most 4095 as the kernel caps it).
func ActionOf(ret uint32) Action {
	data := uint16(ret)
	switch ret & retActionFull {
	case retAllow:
		return Action{Kind: ActAllow}
	case retErrno:
		return Action{Kind: ActErrno, Errno: min(data, maxErrno)}
	case retKillThread:
		return Action{Kind: ActKillThread}
	case retTrap:
		return Action{Kind: ActTrap, Errno: data}
	case retTrace:
		return Action{Kind: ActTrace, Errno: data}
	case retLog:
		return Action{Kind: ActLog}
	case retUserNotif:
		return Action{Kind: ActNotify}
	}
	// SECCOMP_RET_KILL_PROCESS, and what the kernel takes for it.
	return Action{Kind: ActKillProcess}
}

// maxErrno is the kernel's MAX_ERRNO, the largest errno a filter returns.
const maxErrno = 4095
