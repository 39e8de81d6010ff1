package seccomp

import (
	"encoding/binary"
	"fmt"
)

// Program is a classic BPF program, as the seccomp syscall loads it.
type Program []Instruction

const instructionSize = 8

// decodeBPF reads struct sock_filter records in the kernel's layout (native
// byte order: little endian on every architecture nsrun supports).
func decodeBPF(b []byte) (Program, error) {
	if len(b)%instructionSize != 0 {
		return nil, fmt.Errorf("BPF program of %d bytes is not a whole number of instructions", len(b))
	}
	prog := make(Program, len(b)/instructionSize)
	for i := range prog {
		r := b[i*instructionSize:]
		prog[i] = Instruction{Code: binary.LittleEndian.Uint16(r), Jt: r[2], Jf: r[3], K: binary.LittleEndian.Uint32(r[4:])}
	}
	return prog, nil
}

// Notifies reports whether prog can hand a call to a supervisor
// (ActNotify): it must then be loaded with LoadListener, or those calls
// fail with ENOSYS.
func Notifies(prog Program) bool {
	for _, in := range prog {
		if in.Code == bpfRetK && in.K == retUserNotif {
			return true
		}
	}
	return false
}
