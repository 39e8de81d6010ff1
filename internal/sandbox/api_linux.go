package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ptrace"
)

// Attr is what a sandbox is started with.
type Attr struct {
	// Stdin, Stdout and Stderr are the payload's streams, taken as
	// exec.Cmd takes them: an *os.File is passed as it is, nil is
	// /dev/null, and anything else goes through a pipe copied here. Those
	// that are the caller's terminal become the sandbox's own pty (TTY).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// ExtraFiles are passed on after the descriptors of a fixed number;
	// Send tells the first process where (launch.Spec.ExtraFiles).
	ExtraFiles []*os.File
	// Log gets nsrun's steps and the init's, one "nsrun: " line each.
	Log io.Writer
	// Started is when the caller began: the log's times count from it.
	Started time.Time

	// Direct starts the Landlock-only stage, which becomes the payload,
	// instead of an init in new namespaces.
	Direct bool
	// Traced tells the Landlock-only stage that its payload is traced.
	Traced bool

	// The init's user namespace: the user inside and who it is on the
	// host.
	UID, GID, HostUID, HostGID int
	HostNet                    bool // the init gets no network namespace of its own
	Overlay                    bool // the init mounts overlays, which take more capabilities
	Network                    bool // nsrun serves the network: the init gets a socket for it

	// Limits are the sandbox's cgroup limits. Without any, a Direct
	// sandbox still gets a cgroup where one can be made: without a PID
	// namespace it is the surest way to find every process at the end.
	Limits cgroup.Limits
	// KeepCaps are capabilities the init holds across its execve beside
	// the ones it builds the sandbox with, for a payload that keeps them
	// (launch.Spec.Caps); the init drops every other before the payload.
	KeepCaps []uintptr

	TTY        TTYMode // one of the three below
	WindowSize WindowSize

	// ShareMemory has the raw init share this process's memory
	// (rawinit.Attr.ShareMemory, with its costs): no copy, and so no
	// fork helper, however large the heap; not under a memory limit
	// (noShareWhy).
	ShareMemory bool
}

// noShareWhy says why an init asked to share this process's memory gets
// a copy of it, or "". Under the sandbox's memory limit the kernel's OOM
// killer picks among the sandbox's processes, and kills with the one it
// picks every process sharing its memory: pid 1 sharing this process's
// counts this process's resident memory as its own, so a payload of many
// small processes would have it picked, and this process killed with it.
func noShareWhy(a *Attr) string {
	if a.ShareMemory && a.Limits.Memory > 0 {
		return "the sandbox has a memory limit, whose OOM kill of pid 1 would kill this process too"
	}
	return ""
}

// TTYMode says when the payload gets a pseudo-terminal of its own; its
// values are the root package's.
type TTYMode int

const (
	TTYAuto   TTYMode = iota // when a stream is a terminal
	TTYAlways                // always: all three streams are the pty
	TTYNever                 // never: the streams as they are
)

// WindowSize is a terminal's size in character cells.
type WindowSize struct {
	Rows, Cols uint16
}

// Facts is what the planner needs to know of a started sandbox.
type Facts struct {
	Console   bool   // the payload has a pty of its own
	TTYSlave  string // Landlock only: that pty's slave, the one terminal to grant
	CgroupDir string // the sandbox's cgroup v2 directory, "" without one
}

// Hooks is what the caller gives a sandbox once it is planned, besides
// its spec: what to watch, serve and trace, and what to clean up once it
// is gone.
type Hooks struct {
	// Absent are the names the sandbox must not create, watched from
	// before the payload exists; one appearing ends the sandbox.
	Absent []absent.Target
	// Trace, when set, traces the sandbox (--trace-denials): it is called
	// once the first process is in its cgroups, and what it returns is told
	// every call the tracer finds refused.
	Trace func() (func(ptrace.Event), error)
	// Refused decides each call the tracer stops as the sandbox's filters,
	// untraced, would: the errno they answer with, or none.
	Refused func(ptrace.Syscall) (unix.Errno, bool)
	// Watch is called once the sandbox may be ended from outside, before
	// its first process has its spec: the caller's watch of its timeout
	// and context. begun is closed once the payload has started, done once
	// the sandbox is gone.
	Watch func(begun, done <-chan struct{})
	// Started is given the payload once it has started, before begun is
	// closed: what Watch's owner reads of it then is set already.
	Started func(*os.Process)
	// Network is the filtered network's server, nil for none.
	Network *netproxy.Config
	// AllowBind are the ports the payload may listen() on where the init
	// hands over its listener.
	AllowBind []launch.PortRange
	// TmpDir is removed, Kept tidied and KeptLock closed once the sandbox
	// is gone.
	TmpDir   *TmpDir
	Kept     string
	KeptLock *os.File
}

// End is how a sandbox ended, and what it used.
type End struct {
	// Code is the payload's status as nsrun exits with it (its exit code,
	// or 128+Signal), Signal the signal that killed it or 0.
	Code, Signal int
	// Appeared says what made the watcher end the sandbox or what it found
	// planted after, "" if nothing; Found is every find.
	Appeared string
	Found    []absent.Found
	// Refusals are what the Landlock-only supervisor refused for the
	// payload (--trace-denials), which the tracer never saw.
	Refusals        []supervise.Refusal
	RefusalsDropped int
	Usage           Usage
	// Limits is what the cgroup's limits did, nil without a cgroup.
	Limits *cgroup.Events
	// Served says the filtered network was served; Connections and Denied
	// are then its counts.
	Served              bool
	Connections, Denied []netproxy.Count
}

// Usage is what the whole sandbox used.
type Usage struct {
	UserMS    float64
	SystemMS  float64
	MaxRSSKiB int64
	WallMS    float64
	Source    string // "rusage" or "cgroup"
}

// Error is a step of the sandbox's setup that failed: the payload never
// ran. Code is the status it stands for (launch.ExitSetup, or the init's
// 126 or 127 for a command it could not start).
type Error struct {
	Code int
	Op   string // the step, where one is named
	Err  error  // the cause
	Msg  string // the whole message, when set
}

func (e *Error) Error() string {
	return errs.Step(e.Op, e.Msg, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoPTY says the payload has no pseudo-terminal of its own.
var ErrNoPTY = errors.New("the payload has no pseudo-terminal of its own")

// New readies a sandbox: its cgroup, its pty, the pipes and standard
// streams of its first process; nothing runs yet. A cgroup that cannot be
// made is the cgroup package's error.
func New(a *Attr) (*Sandbox, error) {
	s := &Sandbox{log: a.Log, started: a.Started, direct: a.Direct, hostUID: a.HostUID, extra: a.ExtraFiles, pidfd: -1,
		shareMemory: a.ShareMemory, noShareWhy: noShareWhy(a),
		release: make(chan struct{}), done: make(chan struct{}), begun: make(chan struct{})}
	err := checkSettings()
	if err != nil {
		return nil, err
	}
	if a.Limits != (cgroup.Limits{}) {
		if s.cgroup, err = cgroup.New(a.Limits); err != nil {
			return nil, err
		}
	} else if a.Direct {
		s.cgroup = cgroup.NewKill()
	}
	if s.term, err = newTerminal(a); err == nil {
		s.launch, err = s.newLaunch(a)
	}
	if err != nil {
		if s.term != nil {
			s.term.close()
		}
		if s.cgroup != nil {
			s.cgroup.Remove()
		}
		return nil, err
	}
	return s, nil
}

// Facts is what the planner needs to know of the sandbox.
func (s *Sandbox) Facts() Facts {
	var f Facts
	if s.term != nil {
		f.Console, f.TTYSlave = true, s.term.slavePath
	}
	if s.cgroup != nil && s.cgroup.Version() == "v2" {
		f.CgroupDir = s.cgroup.Dir()
	}
	return f
}

// CgroupVersion is the version of the sandbox's cgroup, "" without one.
func (s *Sandbox) CgroupVersion() string {
	if s.cgroup == nil {
		return ""
	}
	return s.cgroup.Version()
}

// Pid is the first process's: the init, or the Landlock-only stage.
func (s *Sandbox) Pid() int { return s.pid }

// Running is when the payload started, once Await has returned.
func (s *Sandbox) Running() time.Time { return s.running }

// Resize sets the size of the payload's pseudo-terminal; the payload gets
// SIGWINCH when it changes. It fails with ErrNoPTY when there is none.
func (s *Sandbox) Resize(ws WindowSize) error {
	if s == nil || s.term == nil {
		return ErrNoPTY
	}
	return s.term.resize(ws)
}

func (s *Sandbox) logf(format string, a ...any) {
	if s.log != nil {
		fmt.Fprintf(s.log, "nsrun: "+format+"\n", a...)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
