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

func TestMPTCPFilter(t *testing.T) {
	prog, err := MPTCP("amd64")
	if err != nil {
		t.Fatal(err)
	}
	const socket, connect = 41, 42
	for _, tc := range []struct {
		name string
		arch uint32
		nr   uint32
		arg2 uint64
		want uint32
	}{
		{"mptcp socket", auditArchX86_64, socket, ipprotoMPTCP, retErrno | eprotonosupport},
		{"mptcp socket, high bits set", auditArchX86_64, socket, ipprotoMPTCP | 1<<32, retErrno | eprotonosupport},
		{"tcp socket", auditArchX86_64, socket, 6, retAllow},
		{"default protocol", auditArchX86_64, socket, 0, retAllow},
		{"another call with 262", auditArchX86_64, connect, ipprotoMPTCP, retAllow},
		{"i386", 0x40000003, socket, 0, retKillProcess},
		{"x32", auditArchX86_64, x32Bit | 41, ipprotoMPTCP, retKillProcess},
		{"syscall(-1)", auditArchX86_64, noCall, 0, retAllow},
	} {
		if got := run(t, prog, tc.arch, tc.nr, [6]uint64{2, 1, tc.arg2}); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
	arm, err := MPTCP("arm64")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, arm, auditArchAarch64, x32Bit|5, [6]uint64{}); got != retAllow {
		t.Errorf("arm64 has no x32: %#x", got)
	}
	if got := run(t, arm, auditArchAarch64, noCall, [6]uint64{}); got != retAllow {
		t.Errorf("arm64 syscall(-1): %#x", got)
	}
	if got := run(t, arm, auditArchAarch64, 198, [6]uint64{2, 1, ipprotoMPTCP}); got != retErrno|eprotonosupport {
		t.Errorf("arm64 mptcp: %#x", got)
	}
	if _, err := MPTCP("mips"); err == nil {
		t.Error("an unknown architecture must be refused")
	}
}
