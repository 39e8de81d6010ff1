// Package front carries what a front end of nsrun other than its own
// command line asks of one launch beyond what a Policy says: bubblewrap's
// command line (cmd/nsrun's bwrap mode) names the payload's argv[0]
// apart from the program, keeps the caller's capabilities as bubblewrap
// does for root, adds bubblewrap's /dev/core, and wants to learn the
// sandbox's first process once it runs (--info-fd), and lays overlays
// of several host directories, or of a host upper directory, or
// read-only ones.
//
// The settings travel in a context.Context given to nsrun.CommandContext,
// so the library's exported API does not grow: only packages of this
// module can make one. The root package reads them with From and lets
// internal/plan apply them to the init's spec. A setting a sandbox cannot
// honour (the Landlock-only isolation has no init and no mounts) is
// refused there, never dropped.
//
// The package holds values only; it imports nothing of nsrun.
package front

import "context"

// Settings are a front end's requests. The zero value asks for nothing.
type Settings struct {
	// Argv0, when set, is the payload's argv[0]; the program is still
	// found from the command's first word.
	Argv0 string
	// NoSandboxEnv leaves NSRUN_SANDBOX out of the payload's environment
	// (bubblewrap sets no such variable).
	NoSandboxEnv bool
	// DevCore adds bubblewrap's /dev/core, a symlink to /proc/kcore, to
	// the sandbox's /dev.
	DevCore bool
	// AsPid1 runs the payload as pid 1 of the sandbox's PID namespace, in
	// place of nsrun's init: nothing reaps the payload's orphans or
	// passes signals on, and the sandbox ends with the payload.
	AsPid1 bool
	// Caps, when not nil, are the capabilities the payload keeps in the
	// sandbox's user namespace instead of none. No capability reaches
	// beyond that namespace.
	Caps *Caps
	// Tmpfs are the modes and sizes of tmpfs the plan mounts
	// (bubblewrap's --perms and --size before --tmpfs), by their path
	// inside; a path where the plan mounts no writable tmpfs is refused.
	Tmpfs []Tmpfs
	// Files are files made in the sandbox with a content of the caller's
	// (bubblewrap's --file, --bind-data and --ro-bind-data), each in a
	// writable tmpfs of the plan; elsewhere it is refused.
	Files []File
	// Overlays are bubblewrap's overlays (--overlay-src with --overlay,
	// --tmp-overlay or --ro-overlay), each at a path where the plan
	// mounts an overlay of its highest lower layer; a path where it
	// mounts none is refused.
	Overlays []Overlay
	// Started, when set, is called once the payload runs, with the host
	// pid of the sandbox's first process (its init, pid 1 inside).
	Started func(initPid int)
	// For, on a session's command, names whom it runs for (the client
	// of nsrun exec that asked), for the session's report.
	For string
}

// Caps are capabilities kept (bit N is capability N): Keep is the
// permitted and effective sets, and with Ambient the inheritable and
// ambient sets too, so that they survive execve for any uid (else they
// do for uid 0 only, as bubblewrap leaves a root caller's that asked for
// no change); Bounding is the bounding set, Keep included.
type Caps struct {
	Keep, Bounding uint64
	Ambient        bool
}

// Tmpfs is a tmpfs's mode (permission bits) and size in bytes (0: the
// kernel's default, or the policy's); ReadOnly makes it read-only once
// made (bubblewrap's --remount-ro).
type Tmpfs struct {
	Path     string
	Mode     uint32
	Size     uint64
	ReadOnly bool
}

// File is a regular file holding Content with permission bits Mode;
// ReadOnly makes it a read-only mount, else it is a writable file of its
// tmpfs.
type File struct {
	Path, Content string
	Mode          uint32
	ReadOnly      bool
}

// Overlay completes the overlay the plan mounts at Path: Lower are the
// host directories beneath the one the plan took as its lower layer,
// highest first; Upper and Work, when Upper is set, are the host's upper
// and work directories (else the upper layer is private and discarded);
// ReadOnly gives it no upper layer and mounts it read-only.
type Overlay struct {
	Path        string
	Lower       []string
	Upper, Work string
	ReadOnly    bool
}

type key struct{}

// With returns ctx carrying s.
func With(ctx context.Context, s *Settings) context.Context {
	return context.WithValue(ctx, key{}, s)
}

// From returns the settings ctx carries, or nil; ctx may be nil.
func From(ctx context.Context) *Settings {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(key{}).(*Settings)
	return s
}

// ForWhom is For, "" for nil settings.
func (s *Settings) ForWhom() string {
	if s == nil {
		return ""
	}
	return s.For
}

// KeptCaps lists the capabilities of Caps.Keep by number, for the
// sandbox's first process to hold across its own execve; none for nil
// settings or no Caps.
func (s *Settings) KeptCaps() []uintptr {
	if s == nil || s.Caps == nil {
		return nil
	}
	var out []uintptr
	for c := range 64 {
		if s.Caps.Keep&(1<<c) != 0 {
			out = append(out, uintptr(c))
		}
	}
	return out
}
