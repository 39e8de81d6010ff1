package nsrun

// Report is what a sandbox enforced and how its payload ended. Field names
// are stable; see DESIGN.md.
type Report struct {
	Version     int              `json:"version"`
	Backend     string           `json:"backend"`
	Enforcement string           `json:"enforcement"` // full, partial or none
	Namespaces  NamespaceReport  `json:"namespaces"`
	Filesystem  FilesystemReport `json:"filesystem"`
	Landlock    LayerReport      `json:"landlock"`
	Seccomp     LayerReport      `json:"seccomp"`
	Exit        ExitReport       `json:"exit"`
	TimingsMS   TimingsReport    `json:"timings_ms"`
	Error       string           `json:"error,omitempty"`
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
}

// LayerReport is the state of one security layer.
type LayerReport struct {
	Status string `json:"status"` // full, partial, none or off
	Reason string `json:"reason,omitempty"`
}

// ExitReport is how the payload ended; Signal is null unless a signal
// killed it.
type ExitReport struct {
	Code     int  `json:"code"`
	Signal   *int `json:"signal"`
	TimedOut bool `json:"timed_out"`
}

// TimingsReport is the wall time of building the sandbox and of running
// the payload, in milliseconds.
type TimingsReport struct {
	Setup float64 `json:"setup"`
	Run   float64 `json:"run"`
}
