package seccomp

import (
	"encoding/binary"
	"testing"
)

// run interprets the few classic BPF instructions the filters use, on a
// struct seccomp_data laid out as the kernel does.
func run(t *testing.T, prog []Instruction, arch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNR:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLdWAbs:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case bpfJeqK, bpfJgeK:
			taken := acc == in.K
			if in.Code == bpfJgeK {
				taken = acc >= in.K
			}
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRetK:
			return in.K
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
	if got := run(t, arm, auditArchAarch64, 198, [6]uint64{2, 1, ipprotoMPTCP}); got != retErrno|eprotonosupport {
		t.Errorf("arm64 mptcp: %#x", got)
	}
	if _, err := MPTCP("mips"); err == nil {
		t.Error("an unknown architecture must be refused")
	}
}
