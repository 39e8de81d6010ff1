package launch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/internal/wire"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

// InitStage is argv[0] of the re-executed init; it is all /proc/1/cmdline
// shows inside.
const InitStage = "nsrun-init"

// Spec is everything the init needs, sent over an inherited pipe so
// none of it appears in the init's argv or environment.
type Spec struct {
	Plan *mounts.Plan
	Args []string
	// Argv0, when set, is the payload's argv[0] in place of Args[0],
	// which still names the program.
	Argv0    string
	Env      []string
	Dir      string
	Hostname string
	Loopback bool
	Verbose  bool
	// TTY, when set, is the pseudo-terminal the init allocates for the
	// payload.
	TTY *TTYSpec
	// Rlimits are set before the payload starts.
	Rlimits []Rlimit
	// ExtraFiles are the init's descriptors that become the payload's 3,
	// 4, ...; -1 leaves that number closed.
	ExtraFiles []int
	// Landlock and Seccomp are applied last, in that order, when set.
	Landlock *landlock.Ruleset
	Seccomp  []seccomp.Program
	// AsPid1 makes the init execute the payload in its own place, as pid
	// 1 of the sandbox, instead of starting it as a child it supervises.
	AsPid1 bool
	// Caps, when set, are the capabilities the payload keeps in the
	// sandbox's user namespace instead of none.
	Caps *Caps
	// HoldListener loads Seccomp[0] with a listener the init keeps open
	// and never reads (--trace-denials, where no program notifies): the
	// kernel allows one per task tree, so the payload cannot load a filter
	// whose notifications would outrank the tracer's stops.
	HoldListener bool
	// Net makes the init serve sockets of its network namespace on
	// NetSockFD, and wait before starting the payload until nsrun has its
	// listeners in place.
	Net bool
	// LoopbackAddrs are given to lo with lo up, for the addresses of a
	// filtered network's address rules.
	LoopbackAddrs []string
	// Session makes the init serve a session (serveSession) on the
	// descriptor ExtraFiles[0] instead of starting Args.
	Session bool
	// Supervisor is set for a Landlock-only sandbox.
	Supervisor *SupervisorSpec
}

// Caps are the capabilities the payload keeps (ns.KeepCapabilities):
// Keep in the permitted and effective sets, with Ambient in the
// inheritable and ambient sets too; Bounding in the bounding set.
type Caps struct {
	Keep, Bounding uint64
	Ambient        bool
}

// TTYSpec is the sandbox's pseudo-terminal: which of the payload's
// streams are its slave, whether the payload starts in its foreground
// (nsrun was in the foreground of the caller's terminal), and the modes and
// size it starts with, copied from the caller's terminal.
type TTYSpec struct {
	Streams    uint8 // bit i: stream i
	Foreground bool
	Mode       []byte // pty.EncodeMode; empty: the kernel's defaults
	Rows, Cols uint16
}

// SupervisorSpec is what the Landlock-only stage needs to supervise its
// payload.
type SupervisorSpec struct {
	// Filter hands the supervisor what Landlock does not check
	// (seccomp.LandlockOnly); the payload loads it last.
	Filter seccomp.Program
	// Writable is where the supervisor lets the payload change metadata
	// and connect to unix sockets; Protected are the paths inside it that
	// keep their names.
	Writable  []supervise.Rule
	Protected []string
	// Workers is the ruleset of the threads that perform calls for the
	// payload: its port rules.
	Workers landlock.Ruleset
	// Home is the caller's home, for advice on what to make executable.
	Home string
	// Listen is set where TCP binding is restricted: the filter hands
	// listen() over, and the supervisor allows it on TCP sockets bound to
	// a port of AllowBind.
	Listen    bool
	AllowBind []PortRange
}

// maxSpec bounds what the init will read, so a broken pipe cannot make it
// allocate without limit.
const maxSpec = 64 << 20

// EncodeSpec frames the spec for the init's pipe.
func EncodeSpec(s *Spec) ([]byte, error) {
	return Frame(s, "spec")
}

func ReadSpec(r io.Reader) (*Spec, error) {
	var s Spec
	if err := ReadFrame(r, &s, "spec"); err != nil {
		return nil, err
	}
	return &s, nil
}

// Frame encodes v with package wire (a new process decodes it far faster
// than JSON) behind a 4-byte big-endian length.
func Frame(v any, what string) ([]byte, error) {
	b, err := wire.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if len(b) > maxSpec {
		return nil, fmt.Errorf("%s of %d bytes is over the %d limit", what, len(b), maxSpec)
	}
	out := make([]byte, 4, 4+len(b))
	binary.BigEndian.PutUint32(out, uint32(len(b)))
	return append(out, b...), nil
}

// ReadFrame reads one Frame into v. A stream that ends before the Frame
// starts gives io.EOF itself.
func ReadFrame(r io.Reader, v any, what string) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		if err == io.EOF {
			return err
		}
		return fmt.Errorf("read %s length: %w", what, err)
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxSpec {
		return fmt.Errorf("%s of %d bytes is over the %d limit", what, size, maxSpec)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	if err := wire.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	return nil
}

// Msg is one Frame the init sends to the parent on the status pipe.
type Msg struct {
	Kind   string // started, error, exit, stopped or log
	Code   int    // exit, error: the status; started: the init's pidfd of the payload (0: none); listener: see MsgListener
	Signal int
	Msg    string
	Pid    int    // started: the payload's pid as its supervisor sees it
	Usage  *Usage // exit: what every process reaped used
	// Refusals (exit, under --trace-denials): the calls the Landlock-only
	// supervisor failed for the payload, and how many more it dropped.
	Refusals        []supervise.Refusal
	RefusalsDropped int
	Errno           int // error: the errno the Failure came from, 0 if none
}

// Failure is the message that says a stage failed with code.
func Failure(code int, err error) Msg {
	m := Msg{Kind: MsgError, Code: code, Msg: err.Error()}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		m.Errno = int(errno)
	}
	return m
}

// Usage is the supervisor's RUSAGE_CHILDREN once it has reaped every
// process of the sandbox.
type Usage struct {
	UserUS, SystemUS int64
	MaxRSSKiB        int64
}

const (
	MsgStarted = "started"
	MsgError   = "error"
	MsgExit    = "exit"
	MsgStopped = "stopped" // the payload was stopped by Signal from its terminal
	MsgLog     = "log"     // a setup step, for -v
	// MsgListener: Code is the init's descriptor of a seccomp listener; the
	// parent takes it (pidfd_getfd) and acknowledges with CtlListener.
	MsgListener = "listener"
)

// Control bytes the parent writes to the init after the spec: when it has
// gone to the foreground or the background of the caller's terminal (after
// a MsgStopped, or when it finds out), once it took a listener, and once
// it found the payload after MsgStarted.
const (
	CtlForeground = 'f' // give the payload the pty's foreground and continue it
	CtlBackground = 'b' // take the pty's foreground from the payload and continue it
	CtlListener   = 'l' // the parent holds the seccomp listener
	// CtlStarted: the parent knows the payload's pid; the supervisor
	// reaps nothing before it, so that the pid names the payload until
	// then.
	CtlStarted = 'p'
	CtlKill    = 'k' // end the whole sandbox (the Landlock-only stage: a SIGKILL would end it alone)
)
