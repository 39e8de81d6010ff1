package plan

import (
	"io"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/launch"
)

// PortRange, Rlimit and AbsentTarget are the stages' and the absent
// watcher's own types, named here for the root package, which lowers into
// them without those packages.
type (
	PortRange    = launch.PortRange
	Rlimit       = launch.Rlimit
	AbsentTarget = absent.Target
)

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
	Cwd  string   // the caller's working directory, canonical
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
	// HomeMade is what the home needs made (MakeHome); PrivateHome is
	// where a private HOME is inside a sandbox with namespaces.
	HomeMade    HomeRequest
	PrivateHome string

	Net    NetRequest    // the served network's settings
	Limits cgroup.Limits // the cgroup's limits, for the report
	Shims  []string      // version managers' shims directories (ShimDirs)

	// Hooks are what planning calls back; they hold no setting.
	Hooks Hooks
}

// Hooks are the functions a Request carries: the root package's part of
// planning, and where planning says what it did.
type Hooks struct {
	// Lower gives the rules, git's protection and the environment, once
	// the home is made (home, nil for HomeInherit) and the sandbox's root
	// known (canonical; "/" without namespaces). Their meaning is the
	// root package's: precedence, nsrun's own rules, the environment's
	// patterns.
	Lower func(home *Home, root string) (*Lowered, error)
	// TmpDir makes a Landlock-only sandbox's private temporary directory,
	// which the caller removes once the sandbox is gone, or if planning
	// fails.
	TmpDir func() (string, error)
	// Warn says what the caller should know; Logf writes the timeline.
	Warn, Logf func(format string, a ...any)
	// Keep says whether a variable is one KeepEnv keeps.
	Keep func(name string) bool
	// Log and Warnings are the Cmd's, for the network server's lines.
	Log, Warnings io.Writer
}

// Lowered is what the root package gives of a policy once its home is
// made: its rules, what git's protection holds, and the environment.
type Lowered struct {
	// Rules are the effective rules (nsrun's own included, with
	// namespaces); User the caller's with the home's and git's, as given.
	Rules, User []Rule
	// Overruled are the rules that did not take effect as written, as the
	// report lists them.
	Overruled []string
	// Pins are the directories the mount plan must hold in place, Links
	// the symlinks git's protection goes through, Held the directories it
	// leaves by "..", Absent the paths it keeps absent.
	Pins, Links, Held, Absent []string
	// Targets are the names kept absent, each with where it is watched.
	Targets []absent.Target
	// Env is the payload's environment before planning: the caller's (or
	// the Cmd's) after UnsetEnv and KeepEnv.
	Env []string
	// HomeDir is the persistent HOME, Identity the git identity file, as
	// the rules show them ("" for none).
	HomeDir, Identity string
}

// Facts is what planning needs to know of the sandbox started before it
// is planned, handed to it rather than read from the running sandbox.
type Facts struct {
	Console   bool   // the payload has a pty of its own
	TTYSlave  string // Landlock only: that pty's slave, the one terminal its rules grant
	CgroupDir string // the sandbox's cgroup v2 directory, "" without one
}
