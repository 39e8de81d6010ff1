package seccomp

import (
	"encoding/binary"
	"testing"
)

// run interprets a classic BPF program (the instructions nsrun and libseccomp emit)
// on a struct seccomp_data laid out as the kernel does.
func run(t *testing.T, prog []Instruction, arch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNR:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var a, x uint32
	var mem [16]uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		jump := func(cond bool) {
			if cond {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		}
		switch in.Code {
		case 0x20: // ld [k]
			a = binary.LittleEndian.Uint32(data[in.K:])
		case 0x00: // ld #k
			a = in.K
		case 0x01: // ldx #k
			x = in.K
		case 0x02: // st M[k]
			mem[in.K] = a
		case 0x03: // stx M[k]
			mem[in.K] = x
		case 0x60: // ld M[k]
			a = mem[in.K]
		case 0x61: // ldx M[k]
			x = mem[in.K]
		case 0x54: // and #k
			a &= in.K
		case 0x44: // or #k
			a |= in.K
		case 0x07: // tax
			x = a
		case 0x87: // txa
			a = x
		case 0x05: // ja
			pc += int(in.K)
		case 0x15:
			jump(a == in.K)
		case 0x25:
			jump(a > in.K)
		case 0x35:
			jump(a >= in.K)
		case 0x45:
			jump(a&in.K != 0)
		case 0x1d:
			jump(a == x)
		case 0x2d:
			jump(a > x)
		case 0x3d:
			jump(a >= x)
		case 0x4d:
			jump(a&x != 0)
		case 0x06:
			return in.K
		case 0x16:
			return a
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}
