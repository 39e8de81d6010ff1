package seccomp

// Compiled is a profile turned into a program for the native architecture.
type Compiled struct {
	Program Program
	// Blocked counts the syscalls the program does not simply allow.
	Blocked int
	// Skipped are calls an allowlist allows that this system cannot name;
	// they stay denied, the safe side.
	Skipped []string
}
