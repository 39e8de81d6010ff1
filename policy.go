package nsrun

import (
	"context"
	"fmt"
	"net"
	"net/netip"
)

// Access is what a rule grants on a path and everything below it, down to
// a deeper rule: ReadOnly, ReadWrite, Deny or Tmpfs.
type Access int

// The accesses a Rule can give.
const (
	// ReadOnly shows the host path read-only.
	ReadOnly Access = iota + 1
	// ReadWrite shows the host path writable.
	ReadWrite
	// Deny hides the host path behind an empty read-only directory or file.
	Deny
	// Tmpfs puts a fresh empty writable tmpfs at the path.
	Tmpfs
	// Overlay shows the host directory writable; what the payload writes
	// lands in an upper layer (a private tmpfs, or under
	// Policy.KeepChanges) and the host directory never changes.
	Overlay
	// Directory makes an empty read-only directory at Path inside, where
	// the tree shown there has none; an existing one stays as it is.
	Directory
	// Symlink makes a symlink at Path inside, to From, taken as it is.
	Symlink
	// Copy shows a read-only copy of the host file From at Path, made when
	// the sandbox starts.
	Copy
	// Device shows a host character device in the sandbox's /dev, with the
	// Landlock right to its ioctls on that node alone.
	Device
	// BlockDevice shows a host block device in /dev. It reads and writes
	// a whole filesystem past every permission and rule on its files:
	// asked for by name, never as Device.
	BlockDevice
)

// String is the access's name in policy files and reports: "ro", "rw",
// "deny", "tmpfs", "overlay", "dir", "symlink", "file", "dev",
// "dev-block".
func (a Access) String() string {
	switch a {
	case ReadOnly:
		return "ro"
	case ReadWrite:
		return "rw"
	case Deny:
		return "deny"
	case Tmpfs:
		return "tmpfs"
	case Overlay:
		return "overlay"
	case Directory:
		return "dir"
	case Symlink:
		return "symlink"
	case Copy:
		return "file"
	case Device:
		return "dev"
	case BlockDevice:
		return "dev-block"
	}
	return fmt.Sprintf("Access(%d)", int(a))
}

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

// Rule gives a path an Access. Path is a host path that appears at the
// same (canonical) place inside; a relative path is taken from the
// current directory. With From, Path is the place inside (absolute, never
// resolved on the host) and From the host path shown there (ReadOnly,
// ReadWrite, Overlay, Copy, Device), or a Symlink's target, taken as it
// is.
// Directory and Symlink name a place inside alone; Device and BlockDevice
// a place under /dev (From, when empty, is Path itself).
//
// The deepest rule covering a path decides. For the same path, the rule
// of the higher Source wins, and between rules of one Source the more
// restrictive (deny, then ro, then tmpfs, then overlay, then rw); two
// rules of one Source that would show different things at one place (two
// host paths, a copy and a bind, a symlink and anything) are an error. A
// deny covers deeper rules of lower sources (they are dropped), and a
// read-only rule turns deeper writable rules (rw, overlay) of lower
// sources read-only.
type Rule struct {
	Path   string
	Access Access
	Source Source
	From   string
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
	// gaps (see docs/LANDLOCK-ONLY.md).
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

// ProcMode says which /proc a sandbox with namespaces shows.
type ProcMode int

const (
	// ProcPrivate mounts a fresh procfs of the sandbox's PID namespace.
	ProcPrivate ProcMode = iota
	// ProcHost binds the /proc nsrun itself sees, read-only with its
	// submounts, for hosts where a fresh procfs cannot be mounted (a
	// container runtime's masked /proc). The sandbox keeps its PID
	// namespace, but its /proc lists the processes outside too; Landlock
	// keeps their environment, descriptors, memory and root out of reach.
	// It is reported as partial.
	ProcHost
)

// SysMode says which /sys a sandbox with namespaces shows.
type SysMode int

const (
	// SysPrivate mounts a fresh sysfs of the sandbox's network namespace,
	// read-only: the host's devices and drivers, but only the sandbox's own
	// network interfaces (lo) and none of the mounts under the host's /sys
	// (its cgroup tree among them). With NetHost the kernel refuses one (a
	// sysfs shows the network namespace it is mounted in, and that one is
	// not the sandbox's), so the sandbox gets SysHost's.
	SysPrivate SysMode = iota
	// SysHost binds the /sys nsrun itself sees, read-only with its
	// submounts: the host's network interfaces and cgroup tree too, which
	// some GPU stacks and hardware tools want.
	SysHost
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
	// ABI 10; a rule the kernel cannot enforce is refused). On the host's
	// network they also restrict the other protocol in the same direction.
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
	// Proc selects the sandbox's /proc: ProcPrivate (the default) or
	// ProcHost.
	Proc ProcMode
	// Sys selects the sandbox's /sys: SysPrivate (the default) or SysHost.
	Sys SysMode
	// KeepChanges is a host directory that keeps the upper layer of every
	// Overlay rule, for ReadChanges and ApplyChanges after the run; ""
	// discards them with the sandbox. nsrun creates it (0700); one that
	// holds the layers of an earlier run with the same overlays is taken
	// up again.
	KeepChanges string
	// TmpfsSize caps /tmp, /dev/shm and every Tmpfs rule, each on its own,
	// in bytes; 0 leaves the kernel's default (half of RAM).
	TmpfsSize uint64
	// Home gives the payload a HOME of its own, with the cache and XDG
	// variables pointing into it and the caller's git identity (user.name,
	// user.email, nothing else of the caller's git configuration); the
	// host's real caches are never written. KeepEnv names what it leaves.
	Home Home
	// HomeDir is the directory of HomePersistent; "" means nsrun's own for
	// this user (StateDir(home, "default", "home")). nsrun creates it
	// (0700) and refuses one that is a symlink, not the caller's, or
	// writable by others.
	HomeDir string
	// ProtectGit protects the git repositories in the writable directory
	// rules, at any depth (package internal/gitguard has what and why):
	// what git writes stays writable; what host git would later run or
	// trust is read-only; and where absent is kept absent, as are the
	// names that would make host git find another repository in those
	// directories, in each repository's top and in the directories
	// between: the directories on each such name's way are held in place,
	// and the name is watched from outside (the sandbox is ended and the
	// name removed when it appears). The repository host git finds above
	// such a directory (one inside a repository's work tree) is read too:
	// what its configuration names in those directories is protected, its
	// git directory left as the rules show it. Report.NestedRepositories
	// names the repositories the payload made there.
	ProtectGit bool
	// TraceDenials records what the sandbox refused the payload (Linux):
	// each denial's process, operation, path or address, errno and the
	// rule that decided it, in the report's "denials" (Report.Denials).
	// The payload is traced (ptrace): it cannot trace anything itself.
	TraceDenials bool
	// UnsetEnv removes from the payload's environment every variable whose
	// name matches one of these patterns (MatchEnv); KeepEnv patterns let
	// a variable through, and keep Home from replacing it. The report
	// lists the names removed.
	UnsetEnv, KeepEnv []string

	// The filtered network: with any of AllowHosts, HostAllowed, Publish
	// or HostPorts set, the sandbox keeps its own network namespace (Net
	// must be NetNone) and nsrun carries the connections they allow.
	//
	// AllowHosts are the hosts the payload may connect to, as
	// PATTERN[:PORT]: a name, "*." and a domain (the names below it), an
	// IP address or CIDR (IPv6 in brackets before a port); without a port,
	// 80 and 443. A name may lead only to public addresses unless an
	// address rule names the address or AllowPrivateHosts is set.
	AllowHosts        []string
	AllowPrivateHosts bool
	// AddHosts are NAME=ADDR answers for nsrun's own lookups of names,
	// ahead of the host's resolver (or Resolve); they make no name allowed.
	AddHosts []string
	// Publish makes servers inside reachable from the host.
	Publish []Publish
	// HostPorts make the host's 127.0.0.1:PORT reachable at 127.0.0.1:PORT
	// inside (TCP).
	HostPorts []PortRange
	// HostAllowed decides a host (a name, or an IP address as text) and
	// port no AllowHosts rule allows; nsrun calls it once per host and
	// port (remembering the last 4096), and for a name looked up through
	// the sandbox's DNS, for ports 80 and 443. A name it allows may still
	// lead only to public addresses, as with AllowHosts; an address it
	// allows is reached as an address rule's is, whatever its class.
	HostAllowed func(host string, port int) bool
	// Dial, if set, makes every connection the sandbox is allowed, to
	// "HOST:PORT" with the host as the payload named it (to go through a
	// company proxy, say). nsrun then resolves no names itself: a dialer
	// that connects directly must keep names off private addresses itself.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Resolve replaces the host's resolver for nsrun's lookups of allowed
	// names.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// RefuseNetwork, with NetNone, the default isolation and no filtered
	// network, serves nsrun's proxy and DNS inside all the same, refusing
	// every host at once: the proxy variables point there (unless Cmd.Env
	// is set: that environment is left as it is), a name does not
	// resolve, the proxy answers 403 saying the sandbox has no network,
	// and Cmd.Warnings gets a line per host naming what would let it
	// (AllowHosts, NetHost). Programs then fail fast and say why, rather
	// than wait for a resolver or proxy that is not there. It opens no way
	// out (nothing is resolved or dialled); the sandbox's 127.0.0.1:53
	// and :3128 are nsrun's. The CLI sets it for the agent preset.
	RefuseNetwork bool
	// ShimLayers, with the default isolation, Home left as the environment
	// has it and no Root, shows the shims directories of the version
	// managers that the environment leads to (pyenv, rbenv and nodenv:
	// their ROOT variables and their directories in HOME) writable, in a
	// layer of the sandbox's own that is discarded with it, so that a
	// shell's start-up regenerates them without an error and without
	// reaching the host. Only a directory the sandbox would otherwise show
	// read-only, on ext4, xfs, btrfs or tmpfs, with nothing mounted below
	// it, gets one; the report lists each under Overlay. The CLI sets it
	// (not when run as bwrap). It has no effect elsewhere.
	ShimLayers bool
}

// Publish makes a TCP server inside the sandbox, on 127.0.0.1:Port,
// reachable on the host at Host.
type Publish struct {
	Host netip.AddrPort
	Port uint16
}

// Home is the payload's home directory.
type Home int

const (
	// HomeInherit leaves HOME as the environment has it.
	HomeInherit Home = iota
	// HomePrivate is an empty HOME of the sandbox's own, gone afterwards.
	HomePrivate
	// HomePersistent is a directory that keeps what the payload leaves
	// there (caches) from one run to the next: Policy.HomeDir.
	HomePersistent
)

func (h Home) String() string {
	switch h {
	case HomeInherit:
		return "inherit"
	case HomePrivate:
		return "private"
	case HomePersistent:
		return "persistent"
	}
	return fmt.Sprintf("Home(%d)", int(h))
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
	return fmt.Sprintf("%s: %v", ruleText(e.Rule), e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// Option is the command-line option, without its dashes, that gives a rule
// like r: ro, rw, bind, ro-bind, dev, dev-bind, file, overlay, ...
func (r Rule) Option() string {
	if r.From != "" {
		switch r.Access {
		case ReadOnly:
			return "ro-bind"
		case ReadWrite:
			return "bind"
		case Device:
			return "dev-bind"
		}
	}
	return r.Access.String()
}

// ruleText is a rule's access and path, and where it comes from.
func ruleText(r Rule) string {
	if r.From == "" {
		return r.Access.String() + " " + r.Path
	}
	return r.Access.String() + " " + r.Path + " from " + r.From
}

// RlimitInfinity is "unlimited".
const RlimitInfinity = ^uint64(0)

// Rlimit is a resource limit for the payload, named as in prlimit(1).
type Rlimit struct {
	Name       string
	Soft, Hard uint64
}
