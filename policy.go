package nsrun

import (
	"fmt"

	"github.com/nsrun/nsrun/mounts"
)

// Access is what a rule grants on a path and everything below it, down to
// a deeper rule: ReadOnly, ReadWrite, Deny or Tmpfs.
type Access = mounts.Access

// The accesses a Rule can give.
const (
	// ReadOnly shows the host path read-only.
	ReadOnly = mounts.ReadOnly
	// ReadWrite shows the host path writable.
	ReadWrite = mounts.ReadWrite
	// Deny hides the host path behind an empty read-only directory or file.
	Deny = mounts.Deny
	// Tmpfs puts a fresh empty writable tmpfs at the path.
	Tmpfs = mounts.Tmpfs
)

// Source says who set a rule, and so which rule wins a conflict.
type Source int

// Sources, from the weakest. The zero value counts as SourceUser.
const (
	// SourceInternal are nsrun's own rules (the private /tmp and /run).
	SourceInternal Source = iota - 1
	// SourceUser is the caller: command-line flags, Policy.Rules.
	SourceUser
	// SourceBaseline is a platform's or a preset's starting point.
	SourceBaseline
	// SourceMandatory are protections no other source can undo.
	SourceMandatory
)

// rank orders sources: baseline < user < mandatory, nsrun's own below all.
func (s Source) rank() int {
	return map[Source]int{SourceInternal: 0, SourceBaseline: 1, SourceUser: 2, SourceMandatory: 3}[s]
}

func (s Source) String() string {
	switch s {
	case SourceInternal:
		return "nsrun"
	case SourceUser:
		return "user"
	case SourceBaseline:
		return "baseline"
	case SourceMandatory:
		return "mandatory"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Rule gives a host path an Access. The path appears at the same
// (canonical) place inside; a relative path is taken from the current
// directory.
//
// The deepest rule covering a path decides. For the same path, the rule
// of the higher Source wins, and between rules of one Source the more
// restrictive (deny, then ro, then tmpfs, then rw). A deny covers deeper
// grants of lower sources (they are dropped), and a read-only rule turns
// deeper read-write rules of lower sources read-only.
type Rule struct {
	Path   string
	Access Access
	Source Source
}

// Net says which network the sandbox has.
type Net int

const (
	// NetNone gives the sandbox its own network namespace with only lo, up.
	NetNone Net = iota
	// NetHost shares the host's network.
	NetHost
)

// Isolation selects the mechanisms a sandbox is built from.
type Isolation int

const (
	// IsolationFull uses namespaces, mounts, Landlock and seccomp.
	IsolationFull Isolation = iota
	// IsolationLandlock uses Landlock and seccomp alone, with a supervisor
	// for what Landlock does not check, for hosts that forbid user
	// namespaces; it is reported as partial, with its compensations and
	// gaps (see the README).
	IsolationLandlock
)

// LandlockMode says whether the Landlock layer is applied.
type LandlockMode int

const (
	// LandlockAuto applies what the kernel supports and reports the rest.
	LandlockAuto LandlockMode = iota
	// LandlockOff leaves the layer out.
	LandlockOff
)

// PortRange is a range of ports of one protocol, "tcp" or "udp".
type PortRange struct {
	Proto       string
	First, Last uint16
}

// Policy is what a sandbox may see and do. The zero value shows the host
// root read-only with a private /tmp and no network.
type Policy struct {
	// Root is a directory shown read-only as "/" instead of the host root.
	Root string
	// Rules lay host paths over the root, in order.
	Rules []Rule
	// Net selects the network; the default is none.
	Net Net
	// Hostname, if set, is the sandbox's host name.
	Hostname string
	// UID and GID are the ids the payload sees; nil means the caller's.
	UID, GID *int
	// Isolation selects namespaces and mounts (the default) or Landlock
	// alone.
	Isolation Isolation
	// Landlock turns the Landlock layer off when set to LandlockOff.
	Landlock LandlockMode
	// AllowConnect and AllowBind, when not empty, are the only ports the
	// payload may connect to and bind (TCP from Landlock ABI 4, UDP from
	// ABI 10).
	AllowConnect, AllowBind []PortRange
	// Seccomp is the seccomp profile: "" or "default" for nsrun's default
	// filter, "off" for none, or the path of an OCI/Docker JSON profile.
	Seccomp string
	// AllowUserns lets the payload create namespaces, e.g. to run a nested
	// sandbox.
	AllowUserns bool
	// AllowHostUnixSockets turns off, in a sandbox without namespaces
	// (IsolationLandlock), what keeps the payload from the host's unix
	// sockets (docker.sock, the ssh agent, D-Bus): connects are not
	// checked and datagram sockets are allowed. The report lists host unix
	// sockets as not enforced.
	AllowHostUnixSockets bool
	// Strict refuses to start unless every layer is fully enforced.
	Strict bool
	// Rlimits are resource limits for the payload; core=0 unless set.
	Rlimits []Rlimit
	// Memory (bytes), Pids and CPU (a fraction of one CPU: 0.5 is half)
	// limit the sandbox through a cgroup v2 of its own; nsrun refuses to
	// start when it cannot make one.
	Memory uint64
	Pids   uint64
	CPU    float64
	// TmpfsSize caps /tmp and every Tmpfs rule, in bytes; 0 leaves the
	// kernel's default (half of RAM).
	TmpfsSize uint64
	// PrivateHome gives the payload a HOME of its own, empty, under the
	// private /tmp, with the usual cache variables pointing into it.
	PrivateHome bool
}

// RuleError is a rule (or the root) that cannot be applied as asked.
type RuleError struct {
	Rule Rule  // Access 0 means Policy.Root
	Err  error // why, naming the resolved path where it differs
}

func (e *RuleError) Error() string {
	if e.Rule.Access == 0 {
		return fmt.Sprintf("root %s: %v", e.Rule.Path, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Rule.Access, e.Rule.Path, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }
