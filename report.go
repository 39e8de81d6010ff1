package nsrun

// Report is what a sandbox enforced and how its payload ended. Field names
// are stable; see DESIGN.md.
type Report struct {
	Version     int              `json:"version"`
	Backend     string           `json:"backend"`
	Enforcement string           `json:"enforcement"` // full, partial or none
	Namespaces  NamespaceReport  `json:"namespaces"`
	Filesystem  FilesystemReport `json:"filesystem"`
	Landlock    LandlockReport   `json:"landlock"`
	Seccomp     SeccompReport    `json:"seccomp"`
	Exit        ExitReport       `json:"exit"`
	TimingsMS   TimingsReport    `json:"timings_ms"`
	// Limits are the resource limits applied: rlimits as "soft:hard",
	// tmpfs_size in bytes.
	Limits map[string]string `json:"limits,omitempty"`
	// Compensations are what stands in for what a layer lacks (a Landlock-
	// only sandbox: which seccomp rules and supervisor checks do what
	// Landlock cannot), one readable line each.
	Compensations []string `json:"compensations,omitempty"`
	// NotEnforced lists what the backend cannot do at all (macOS, Windows,
	// and a Landlock-only sandbox's gaps), one readable line each.
	NotEnforced []string `json:"not_enforced,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// NamespaceReport says which namespaces the sandbox has of its own.
type NamespaceReport struct {
	User   bool `json:"user"`
	Mount  bool `json:"mount"`
	PID    bool `json:"pid"`
	IPC    bool `json:"ipc"`
	UTS    bool `json:"uts"`
	Net    bool `json:"net"`
	Cgroup bool `json:"cgroup"`
}

// FilesystemReport lists the canonical paths of each kind, nsrun's own
// (/tmp, /run) included.
type FilesystemReport struct {
	Root  string   `json:"root"`
	RW    []string `json:"rw"`
	RO    []string `json:"ro"`
	Deny  []string `json:"deny"`
	Tmpfs []string `json:"tmpfs"`
	// Overruled are rules that did not take effect as written: dropped
	// under a deny of a higher source, made read-only, or beaten on the
	// same path.
	Overruled []string `json:"overruled,omitempty"`
}

// LandlockReport is the state of the Landlock layer: what the kernel
// offers (ABI), what the policy needed (RequestedABI), and what it asked
// for and did not get (Dropped).
type LandlockReport struct {
	Status       string   `json:"status"` // full, partial, none or off
	ABI          int      `json:"abi"`
	RequestedABI int      `json:"requested_abi"`
	Dropped      []string `json:"dropped"`
	Reason       string   `json:"reason,omitempty"`
}

// SeccompReport is the state of the seccomp layer.
type SeccompReport struct {
	Status          string `json:"status"` // full, partial, none or off
	Profile         string `json:"profile,omitempty"`
	SyscallsBlocked int    `json:"syscalls_blocked"`
	Reason          string `json:"reason,omitempty"`
}

// ExitReport is how the payload ended; Signal is null unless a signal
// killed it.
type ExitReport struct {
	Code     int  `json:"code"`
	Signal   *int `json:"signal"`
	TimedOut bool `json:"timed_out"`
	// OOMKilled and PidsMax say the payload met its memory or pids limit.
	OOMKilled bool `json:"oom_killed,omitempty"`
	PidsMax   bool `json:"pids_max,omitempty"`
}

// TimingsReport is the wall time of building the sandbox and of running
// the payload, in milliseconds.
type TimingsReport struct {
	Setup float64 `json:"setup"`
	Run   float64 `json:"run"`
}
