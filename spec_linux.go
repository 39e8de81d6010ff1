package nsrun

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/internal/wire"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

// initStage is argv[0] of the re-executed init; it is all /proc/1/cmdline
// shows inside.
const initStage = "nsrun-init"

// initSpec is everything the init needs, sent over an inherited pipe so
// none of it appears in the init's argv or environment.
type initSpec struct {
	Plan       *mounts.Plan
	Args       []string
	Env        []string
	Dir        string
	Hostname   string
	Loopback   bool
	Foreground bool
	Verbose    bool
	// Rlimits are set before the payload starts.
	Rlimits []Rlimit
	// Landlock and Seccomp are applied last, in that order, when set.
	Landlock *landlock.Ruleset
	Seccomp  []seccomp.Program
	// Supervisor is set for a Landlock-only sandbox.
	Supervisor *supervisorSpec
}

// supervisorSpec is what the Landlock-only stage needs to supervise its
// payload.
type supervisorSpec struct {
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
}

// maxSpec bounds what the init will read, so a broken pipe cannot make it
// allocate without limit.
const maxSpec = 64 << 20

// encodeSpec frames the spec for the init's pipe.
func encodeSpec(s *initSpec) ([]byte, error) {
	return frame(s, "spec")
}

func readSpec(r io.Reader) (*initSpec, error) {
	var s initSpec
	if err := readFrame(r, &s, "spec"); err != nil {
		return nil, err
	}
	return &s, nil
}

// frame encodes v with package wire (a new process decodes it far faster
// than JSON) behind a 4-byte big-endian length.
func frame(v any, what string) ([]byte, error) {
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

// readFrame reads one frame into v. A stream that ends before the frame
// starts gives io.EOF itself.
func readFrame(r io.Reader, v any, what string) error {
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

// initMsg is one frame the init sends to the parent on the status pipe.
type initMsg struct {
	Kind   string // started, error, exit or stopped
	Code   int
	Signal int
	Msg    string
}

const (
	msgStarted = "started"
	msgError   = "error"
	msgExit    = "exit"
	msgStopped = "stopped" // the payload was stopped from the terminal
)

// Control bytes the parent writes to the init after the spec, once it was
// itself continued after a msgStopped.
const (
	ctlForeground = 'f' // continue the payload and give it the terminal
	ctlBackground = 'b' // continue the payload without the terminal
	ctlKill       = 'k' // end the sandbox (a Landlock-only one, whose stage a SIGKILL would not let end it)
)
