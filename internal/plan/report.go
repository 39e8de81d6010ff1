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

// NamespaceReport mirrors the root package's report of the namespaces.
type NamespaceReport struct {
	User, Mount, PID, IPC, UTS, Net, Cgroup bool
}

// FilesystemReport mirrors the root package's report of the filesystem
// (see there for what each list holds).
type FilesystemReport struct {
	Root      string
	RW        []string
	RO        []string
	Deny      []string
	Tmpfs     []string
	Proc      string
	Sys       string
	Overruled []string
	Pinned    []string
	From      map[string]string
	Overlay   []string
	Changes   string
	Devices   []string
	Files     []string
	Sockets   []string
	Created   []string
	Hidden    []string
}
