package seccomp

import (
	"encoding/binary"
	"fmt"
)

// Compiled is a profile turned into a program for the native architecture.
type Compiled struct {
	Program []Instruction
	// Blocked counts the syscalls the program does not simply allow.
	Blocked int
	// Skipped are calls an allowlist allows that this system cannot name;
	// they stay denied, the safe side.
	Skipped []string
}

// decodeBPF reads struct sock_filter records as libseccomp exports them
// (native byte order, little endian on every architecture nsrun supports).
func decodeBPF(b []byte) ([]Instruction, error) {
	if len(b) == 0 || len(b)%8 != 0 {
		return nil, fmt.Errorf("seccomp: exported program of %d bytes is not a whole number of instructions", len(b))
	}
	prog := make([]Instruction, len(b)/8)
	for i := range prog {
		r := b[8*i:]
		prog[i] = Instruction{Code: binary.LittleEndian.Uint16(r), Jt: r[2], Jf: r[3], K: binary.LittleEndian.Uint32(r[4:])}
	}
	return prog, nil
}
