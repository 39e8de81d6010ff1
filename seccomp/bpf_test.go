package seccomp

import "testing"

// run runs a program (the instructions nsrun and libseccomp emit) on a
// call, checked first as the kernel would.
func run(t *testing.T, prog []Instruction, arch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	if err := Program(prog).Check(); err != nil {
		t.Fatal(err)
	}
	return Program(prog).Run(Data{NR: int32(nr), Arch: arch, Args: args})
}
