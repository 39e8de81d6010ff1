package plan

// LandlockReport mirrors the root package's report of the Landlock layer,
// field for field, so that one converts into the other.
type LandlockReport struct {
	Status       string
	ABI          int
	RequestedABI int
	Dropped      []string
	Reason       string
}

// SeccompReport mirrors the root package's report of the seccomp layer.
type SeccompReport struct {
	Status          string
	Profile         string
	SyscallsBlocked int
	Rules           []string
	Reason          string
}
