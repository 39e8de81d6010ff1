package plan

import "github.com/nsrun/nsrun/internal/launch"

// HomeMode is the payload's HOME: the root package's Home, by value.
type HomeMode int

const (
	HomeInherit HomeMode = iota
	HomePrivate
	HomePersistent
)

// Request is a Policy and a Cmd lowered into what planning reads of them:
// plain values, none of the root package's types. The root lowers it once
// per launch (its request); a setting it does not carry is listed, with
// the reason, beside the root's test that every Policy field is lowered
// (TestRequestLowersEveryField).
type Request struct {
	Args []string // the command and its arguments
	Dir  string   // the payload's working directory as given, "" for the caller's
	// Verbose: the stages log their steps (the Cmd has a Log).
	Verbose bool
	// CallerEnv: the Cmd gave the payload's environment itself, which is
	// left as it is where nsrun would set a variable for its own reasons.
	CallerEnv bool

	Root         string // the sandbox's root as given, "" for the host's
	LandlockOnly bool   // no namespaces: Landlock and seccomp alone
	Layers       LayerRequest
	IDs          IDs
	SetIDs       bool // the policy chose the ids (UID or GID)
	Hostname     string
	HostProc     bool
	HostSys      bool
	TmpfsSize    uint64
	Rlimits      []launch.Rlimit // with nsrun's default (core 0) added

	AllowHostUnixSockets bool
	Strict               bool
	ProtectGit           bool
	TraceDenials         bool
	KeepChanges          string

	Home     HomeMode
	HomeDir  string
	UnsetEnv []string // patterns of variables removed from the payload's environment
	KeepEnv  []string // patterns of variables kept: removed by nothing, set by nothing
}

// Facts is what planning needs to know of the sandbox started before it
// is planned, handed to it rather than read from the running sandbox.
type Facts struct {
	Console   bool   // the payload has a pty of its own
	TTYSlave  string // Landlock only: that pty's slave, the one terminal its rules grant
	CgroupDir string // the sandbox's cgroup v2 directory, "" without one
}
