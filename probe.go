package nsrun

// Probe is what this host can enforce, and why not where it cannot.
type Probe struct {
	UserNamespaces ProbeItem `json:"user_namespaces"`
	// Nested is true when this process already runs in a user namespace
	// other than the host's (a container, another sandbox).
	Nested bool `json:"nested"`
	// Procfs is a fresh procfs in new namespaces, which a container's
	// masked /proc makes the kernel refuse (then only --proc host works).
	Procfs ProbeItem `json:"procfs"`
	// Sysfs is a fresh sysfs in a new network namespace, which a
	// container's masked /sys makes the kernel refuse (then only --sys
	// host works).
	Sysfs        ProbeItem `json:"sysfs"`
	MountSetattr ProbeItem `json:"mount_setattr"`
	Landlock     ProbeItem `json:"landlock"`
	LandlockABI  int       `json:"landlock_abi"`
	Seccomp      ProbeItem `json:"seccomp"`
	CgroupV2     ProbeItem `json:"cgroup_v2"`
	CgroupV2Path string    `json:"cgroup_v2_path,omitempty"`
	// Limits says which of --memory, --pids and --cpu work for the caller,
	// found by making and removing a cgroup for each and moving a process
	// into it; LimitsCgroup maps each that works to "v1" or "v2".
	Limits       ProbeItem         `json:"limits"`
	LimitsCgroup map[string]string `json:"limits_cgroup,omitempty"`
	Seatbelt     ProbeItem         `json:"seatbelt"`
	// RestrictedToken is what the Windows backend can enforce here.
	RestrictedToken ProbeRestrictedToken `json:"restricted_token"`
	// LandlockOnly is what --isolation landlock can enforce here.
	LandlockOnly ProbeLandlockOnly `json:"landlock_only"`
}

// ProbeLandlockOnly is what a sandbox of Landlock and seccomp alone can
// enforce on this host: by Landlock itself, by what stands in for what
// Landlock lacks, and what is left open (as its report would say).
type ProbeLandlockOnly struct {
	OK            bool     `json:"ok"`
	Detail        string   `json:"detail"`
	Enforced      []string `json:"enforced,omitempty"`
	Compensations []string `json:"compensations,omitempty"`
	NotEnforced   []string `json:"not_enforced,omitempty"`
}

// ProbeRestrictedToken is what the Windows backend (a restricted token,
// ACEs, a job object) can enforce on this host, and what it leaves open,
// as its report would say.
type ProbeRestrictedToken struct {
	OK          bool     `json:"ok"`
	Detail      string   `json:"detail"`
	Enforced    []string `json:"enforced,omitempty"`
	NotEnforced []string `json:"not_enforced,omitempty"`
}

// ProbeItem is one capability of the host.
type ProbeItem struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}
