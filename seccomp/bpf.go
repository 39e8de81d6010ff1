package seccomp

import "fmt"

// Instruction is one classic BPF instruction (struct sock_filter).
type Instruction struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}

// Classic BPF opcodes and seccomp return values, as in the kernel's UAPI;
// spelled out so the filter builds on every system.
const (
	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfJgtK   = 0x25 // BPF_JMP | BPF_JGT | BPF_K
	bpfJsetK  = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfJa     = 0x05 // BPF_JMP | BPF_JA
	bpfAndK   = 0x54 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	retKillProcess = 0x80000000
	retKillThread  = 0x00000000
	retTrap        = 0x00030000
	retErrno       = 0x00050000
	retUserNotif   = 0x7fc00000
	retTrace       = 0x7ff00000
	retLog         = 0x7ffc0000
	retAllow       = 0x7fff0000

	auditArchX86_64  = 0xc000003e
	auditArchAarch64 = 0xc00000b7

	eprotonosupport = 93
)

// arch is what a filter needs to know about the native architecture.
type arch struct {
	audit    uint32 // AUDIT_ARCH_*
	socket   uint32 // socket(2)
	x32      bool   // syscall numbers with bit 30 set are another ABI
	syscalls syscallTable
}

var arches = map[string]arch{
	"amd64": {audit: auditArchX86_64, socket: 41, x32: true, syscalls: syscallsAMD64},
	"arm64": {audit: auditArchAarch64, socket: 198, syscalls: syscallsARM64},
}

const (
	ipprotoMPTCP = 262
	// Offsets in struct seccomp_data (little endian).
	offNR   = 0
	offArch = 4
	offArgs = 16       // args[0]; each is 8 bytes, low half first
	offArg2 = 16 + 2*8 // low 32 bits of args[2]
	x32Bit  = 0x40000000
	noCall  = 0xFFFFFFFF // syscall(-1)
)

func stmt(code uint16, k uint32) Instruction { return Instruction{Code: code, K: k} }

func jump(code uint16, k uint32, jt, jf uint8) Instruction {
	return Instruction{Code: code, Jt: jt, Jf: jf, K: k}
}

// MPTCP returns the filter that refuses MPTCP sockets, for the named
// architecture (runtime.GOARCH).
func MPTCP(goarch string) ([]Instruction, error) {
	a, ok := arches[goarch]
	if !ok {
		return nil, fmt.Errorf("seccomp: no filter for architecture %s", goarch)
	}
	const ld, jeq, jge, ret = bpfLdWAbs, bpfJeqK, bpfJgeK, bpfRetK
	x32 := uint32(noCall) // only -1 reaches the x32 test where there is no x32
	if a.x32 {
		x32 = x32Bit
	}
	return []Instruction{
		/* 0 */ stmt(ld, offArch),
		/* 1 */ jump(jeq, a.audit, 1, 0),
		/* 2 */ stmt(ret, retKillProcess),
		/* 3 */ stmt(ld, offNR),
		/* 4 */ jump(jge, x32, 0, 2),
		/* 5 */ jump(jeq, noCall, 1, 0), // -1: no call, ENOSYS from the kernel
		/* 6 */ stmt(ret, retKillProcess),
		/* 7 */ jump(jeq, a.socket, 0, 3),
		/* 8 */ stmt(ld, offArg2),
		/* 9 */ jump(jeq, ipprotoMPTCP, 0, 1),
		/* 10 */ stmt(ret, retErrno|eprotonosupport),
		/* 11 */ stmt(ret, retAllow),
	}, nil
}
