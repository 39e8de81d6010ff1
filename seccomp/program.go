package seccomp

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// Program is a BPF program that travels as JSON in the kernel's own
// layout (8 bytes per instruction, little-endian, base64): a re-executed
// process decodes it in a few microseconds, where a list of objects
// costs hundreds.
type Program []Instruction

const instructionSize = 8

// MarshalJSON encodes p as one base64 string.
func (p Program) MarshalJSON() ([]byte, error) {
	raw := make([]byte, len(p)*instructionSize)
	for i, in := range p {
		b := raw[i*instructionSize:]
		binary.LittleEndian.PutUint16(b, in.Code)
		b[2], b[3] = in.Jt, in.Jf
		binary.LittleEndian.PutUint32(b[4:], in.K)
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(raw))
}

// UnmarshalJSON decodes what MarshalJSON encoded.
func (p *Program) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("BPF program: %w", err)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("BPF program: %w", err)
	}
	if len(raw) == 0 {
		return errors.New("BPF program is empty")
	}
	*p, err = decodeBPF(raw)
	return err
}

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
