package nsrun

import "time"

// Report is what a sandbox enforced and how its payload ended. Field names
// are stable (docs/REPORT.md describes each; a new field is added, never
// renamed).
type Report struct {
	Version     int    `json:"version"`
	Backend     string `json:"backend"`
	Enforcement string `json:"enforcement"` // full, partial or none
	// Command is the command and its arguments, as given.
	Command []string `json:"command,omitempty"`
	// Dir is the payload's working directory inside; UID and GID are its
	// ids there. All three are left out when the sandbox was not built.
	Dir        string           `json:"dir,omitempty"`
	UID        *int             `json:"uid,omitempty"`
	GID        *int             `json:"gid,omitempty"`
	Namespaces NamespaceReport  `json:"namespaces"`
	Filesystem FilesystemReport `json:"filesystem"`
	Landlock   LandlockReport   `json:"landlock"`
	Seccomp    SeccompReport    `json:"seccomp"`
	Exit       ExitReport       `json:"exit"`
	TimingsMS  TimingsReport    `json:"timings_ms"`
	// Usage is what the whole sandbox used; nil when no payload ran.
	Usage *UsageReport `json:"usage,omitempty"`
	// ExtraFiles are the descriptors passed beyond the standard streams
	// (Cmd.ExtraFiles).
	ExtraFiles []ExtraFileReport `json:"extra_files,omitempty"`
	// Environment says what the payload's environment lost.
	Environment EnvironmentReport `json:"environment"`
	// Absent are the names nsrun kept absent from outside (Policy.ProtectGit),
	// and what appeared anyway.
	Absent *AbsentReport `json:"absent,omitempty"`
	// NestedRepositories are the repositories the payload made where the
	// git protection searched (work trees with a .git of any kind, bare
	// ones, git directories), those it registered as submodules of a
	// protected one first: host git there uses their configuration.
	NestedRepositories []string `json:"nested_repositories,omitempty"`
	// Network is what the sandbox could reach and what it tried; nil
	// when no sandbox was built.
	Network *NetworkReport `json:"network,omitempty"`
	// Limits are the resource limits applied: rlimits as "soft:hard",
	// tmpfs_size in bytes.
	Limits map[string]string `json:"limits,omitempty"`
	// Compensations are what stands in for what a layer lacks (a Landlock-
	// only sandbox: which seccomp rules and supervisor checks do what
	// Landlock cannot), one readable line each.
	Compensations []string `json:"compensations,omitempty"`
	// NotEnforced lists what the backend cannot do at all (macOS, Windows,
	// and a Landlock-only sandbox's gaps), or what a chosen mode gives up
	// (--proc host), one readable line each.
	NotEnforced []string `json:"not_enforced,omitempty"`
	// Denials are what the sandbox refused the payload, one entry per
	// distinct operation, path or address, errno and rule, with a count
	// (Policy.TraceDenials; absent without it, empty when nothing was
	// refused). DenialsDropped counts the denials left out once
	// maxDenials distinct ones were listed.
	Denials        []Denial `json:"denials,omitzero"`
	DenialsDropped int      `json:"denials_dropped,omitempty"`
	// Session is a session's own part of its report, once it has ended
	// (Session.Report); nil for any other run.
	Session *SessionReport `json:"session,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// SessionReport is what a session ran and how it ended. The session's
// peak memory is its report's Usage.MaxRSSKiB (its cgroup's peak where it
// has one, else its largest process's).
type SessionReport struct {
	// Ended says why the session ended: "close" (Session.Close), "timeout"
	// or "cancelled" (StartSession's context), "ended" (its init ended by
	// itself: a command killed it, or every process); nsrun's holder says
	// "stop", "idle-timeout", "timeout" or "signal".
	Ended string `json:"ended"`
	// Commands are the commands run in it, in the order they were asked
	// for; CommandsDropped counts those left out once 10,000
	// were listed.
	Commands        []SessionCommand `json:"commands"`
	CommandsDropped int              `json:"commands_dropped,omitempty"`
	// Killed are the processes still running when it ended, which its end
	// killed: a snapshot taken just before (none when it ended by itself).
	Killed []SessionProcess `json:"killed"`
	// Warnings are what nsrun warned of for the session, at its start
	// and at its end (see Session.Warnings).
	Warnings []string `json:"warnings,omitempty"`
}

// SessionCommand is one command of a session.
type SessionCommand struct {
	Command []string `json:"command"`
	// For is whom it ran for: for nsrun exec, its client process and that
	// one's parent; empty for the library's caller.
	For string `json:"for,omitempty"`
	// Pid is its pid inside the session; 0 if it never started.
	Pid     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Exit is how it ended: SIGKILL for one the session's end killed;
	// 125, 126 or 127 for one that could not be started (Error says why).
	Exit       ExitReport `json:"exit"`
	DurationMS float64    `json:"duration_ms"`
	Error      string     `json:"error,omitempty"` // why it could not be started
}

// SessionProcess is a process of a session, by its pid inside.
type SessionProcess struct {
	Pid     int      `json:"pid"`
	Command []string `json:"command"`
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
	// Proc is "private" for a fresh procfs of the sandbox's PID namespace,
	// "host" for the /proc nsrun sees (--proc host, and the Landlock-only
	// mode), which lists processes outside the sandbox.
	Proc string `json:"proc,omitempty"`
	// Sys is "private" for a fresh read-only sysfs of the sandbox's network
	// namespace, "host" for the /sys nsrun sees (--sys host, --net host,
	// and the Landlock-only mode), which shows the host's network
	// interfaces and cgroup tree.
	Sys string `json:"sys,omitempty"`
	// Overruled are rules that did not take effect as written: dropped
	// under a deny of a higher source, made read-only, or beaten on the
	// same path.
	Overruled []string `json:"overruled,omitempty"`
	// Pinned are directories bound onto themselves so that the payload
	// cannot rename or replace them: each holds a deeper read-only or deny
	// rule (or a watched git directory) inside a writable tree.
	Pinned []string `json:"pinned,omitempty"`
	// From maps each place inside that shows another host path (--bind,
	// --ro-bind) to that path.
	From map[string]string `json:"from,omitempty"`
	// Overlay are the places shown writable over a host directory that
	// never changes (--overlay); Changes is where their upper layers are
	// kept (--keep-changes).
	Overlay []string `json:"overlay,omitempty"`
	Changes string   `json:"changes,omitempty"`
	// Devices are the host devices in the sandbox's /dev beyond its own
	// (--dev, --dev-bind, --dev-block).
	Devices []string `json:"devices,omitempty"`
	// Files are read-only files of the sandbox's own: copies of host files
	// (--file) and the ones nsrun writes (/etc/passwd and /etc/group with
	// entries for the payload's ids).
	Files []string `json:"files,omitempty"`
	// Sockets are unix sockets a rule shows: the payload can connect to
	// them, read-only or not.
	Sockets []string `json:"sockets,omitempty"`
	// Created are the directories, symlinks and mount points nsrun made
	// inside where the tree shown there has none (never on the host).
	Created []string `json:"created,omitempty"`
	// Hidden are the kernel's root-only reports covered in /proc and /sys
	// for a sandbox of the host's root, whose reads would pass their
	// modes: the physical pages' state, the kernel's heap and address
	// layout, firmware tables and power meters (each where the kernel has
	// it).
	Hidden []string `json:"hidden,omitempty"`
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
	// Rules are nsrun's own rule sets, loaded beside the profile whatever
	// it is (see docs/MANUAL.md, "seccomp"): "no-setid", "no-network",
	// "inet-tcp-udp-only", "no-tcp-fastopen", "listen-checked".
	Rules  []string `json:"rules,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

// NetworkReport is the sandbox's network: "none" (its own namespace with
// only lo), "host" (the host's), or "filtered" (its own namespace, and
// what Allowed, HostPorts and Publish name carried by nsrun).
type NetworkReport struct {
	Mode string `json:"mode"`
	// Allowed are the AllowHosts rules, one HOST:PORT each.
	Allowed           []string `json:"allowed"`
	AllowPrivateHosts bool     `json:"allow_private_hosts,omitempty"`
	// Proxy is the HTTP and SOCKS5 proxy's address as the payload reaches
	// it; DNS the resolver's ("" when the payload has none of nsrun's).
	Proxy     string   `json:"proxy,omitempty"`
	DNS       string   `json:"dns,omitempty"`
	HostPorts []string `json:"host_ports,omitempty"`
	Publish   []string `json:"publish,omitempty"`
	// Connections are those nsrun carried, Denied those it refused, by
	// host and port (port 0: a name looked up through the sandbox's DNS).
	Connections []NetworkCount `json:"connections"`
	Denied      []NetworkCount `json:"denied"`
}

// NetworkCount is a number of connections to one host and port.
type NetworkCount struct {
	Host  string `json:"host"`
	Port  int    `json:"port"`
	Count int    `json:"count"`
	// Reason is why the first refusal was made (in Denied only).
	Reason string `json:"reason,omitempty"`
}

// ExtraFileReport is a descriptor the payload was given: its number inside
// and what it is, as the kernel names it ("pipe:[123]", a path).
type ExtraFileReport struct {
	FD   int    `json:"fd"`
	Name string `json:"name"`
}

// UsageReport is what the whole sandbox used, every process of it
// together, from the payload's start to the end of its last process
// (WallMS). CPU time comes from the sandbox's cgroup where nsrun made one
// that counts it (cgroup v2; on v1, a group made for Policy.CPU), else
// from the accounting of the processes the init reaped, which is all of
// them. Source says what MaxRSSKiB is: "cgroup", the memory peak of the
// sandbox's cgroup (a memory limit made one): all its processes at once,
// the page cache they caused and the init included; "rusage", the largest
// resident set of a single process, which starts at the init's (a few
// MiB: the payload is forked from it); "job" on Windows, the job's peak
// committed memory.
type UsageReport struct {
	UserMS    float64 `json:"user_ms"`
	SystemMS  float64 `json:"system_ms"`
	MaxRSSKiB int64   `json:"max_rss_kib"`
	WallMS    float64 `json:"wall_ms"`
	Source    string  `json:"source"`
}

// ExitReport is how the payload ended; Signal is null unless a signal
// killed it.
type ExitReport struct {
	Code     int  `json:"code"`
	Signal   *int `json:"signal"`
	TimedOut bool `json:"timed_out"`
	// Cancelled says that the program's context ended the sandbox
	// (cancelled, or its deadline passed): a library run, never the CLI's.
	Cancelled bool `json:"cancelled"`
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

// notBuilt makes r claim nothing: the sandbox was not built, so no payload
// ran under any layer, whatever the init had applied before it failed.
// Every layer is "none" or false (one the policy turned off stays "off"),
// nothing is listed as mounted or limited, and Error says why.
func (r *Report) notBuilt(backend string, err error) {
	r.Version, r.Backend, r.Enforcement = 1, backend, "none"
	r.Namespaces = NamespaceReport{}
	r.Filesystem = FilesystemReport{RW: []string{}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}, Overruled: r.Filesystem.Overruled}
	const why = "not applied: the sandbox was not built"
	if r.Landlock.Status != "off" {
		r.Landlock.Status, r.Landlock.Reason = "none", why
	}
	if r.Landlock.Dropped == nil {
		r.Landlock.Dropped = []string{}
	}
	if r.Seccomp.Status != "off" {
		r.Seccomp.Status, r.Seccomp.Reason = "none", why
	}
	r.Seccomp.SyscallsBlocked, r.Seccomp.Rules = 0, nil
	r.Limits, r.NotEnforced, r.Network = nil, nil, nil
	r.Dir, r.UID, r.GID, r.Usage, r.ExtraFiles = "", nil, nil, nil, nil
	r.Error = err.Error()
	r.Exit = ExitReport{Code: ExitCode(err)}
	r.TimingsMS.Run = 0
}

// EnvironmentReport lists, by name only (never a value), the variables
// Policy.UnsetEnv removed, and the payload's HOME when nsrun set it.
type EnvironmentReport struct {
	Removed []string `json:"removed"`
	Home    string   `json:"home,omitempty"`
}

// AbsentReport is what nsrun watched for and found.
type AbsentReport struct {
	Watched  []string         `json:"watched"`
	Appeared []AppearedReport `json:"appeared"`
}

// AppearedReport is a name kept absent that appeared, or whose way
// changed: nsrun ended the sandbox and removed what made the path resolve.
type AppearedReport struct {
	Path string `json:"path"`
	// Way is the directory on the way to Path that was moved, removed or
	// replaced, if one was.
	Way string `json:"way,omitempty"`
	// At is where what Kind says stood, when not at Path: a symlink (or
	// another file) in place of a directory of the way.
	At      string `json:"at,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Why     string `json:"why"`
	Removed bool   `json:"removed"`
	Error   string `json:"error,omitempty"`
}

// Denial is an operation the sandbox refused the payload.
type Denial struct {
	// Pid is the process's id as the payload sees it; Argv0 its command.
	Pid   int    `json:"pid"`
	Argv0 string `json:"argv0"`
	// Operation is what was refused: "open for write", "create", "unlink",
	// "rename", "exec", "connect", "bind", a refused call by name.
	Operation string `json:"operation"`
	Path      string `json:"path,omitempty"`
	Address   string `json:"address,omitempty"`
	// Errno is the error the payload got (EROFS, EACCES, EPERM...).
	Errno string `json:"errno"`
	// Rule is what decided it: "read-only: host root", "--deny /x",
	// "landlock: ...", "seccomp: keyctl", "network: ...".
	Rule string `json:"rule"`
	// Allow is the option that would allow it ("--rw /x"), where one
	// does; nsrun policy suggest collects them.
	Allow string `json:"allow,omitempty"`
	Count int    `json:"count"`
}
