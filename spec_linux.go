package nsrun

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

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
	Plan       *mounts.Plan `json:"plan"`
	Args       []string     `json:"args"`
	Env        []string     `json:"env"`
	Dir        string       `json:"dir"`
	Hostname   string       `json:"hostname,omitempty"`
	Loopback   bool         `json:"loopback"`
	Foreground bool         `json:"foreground"`
	Verbose    bool         `json:"verbose"`
	// Rlimits are set before the payload starts.
	Rlimits []Rlimit `json:"rlimits,omitempty"`
	// Landlock and Seccomp are applied last, in that order, when set.
	Landlock *landlock.Ruleset `json:"landlock,omitempty"`
	Seccomp  []seccomp.Program `json:"seccomp,omitempty"`
}

// maxSpec bounds what the init will read, so a broken pipe cannot make it
// allocate without limit.
const maxSpec = 64 << 20

// encodeSpec frames the spec as a 4-byte big-endian length and JSON.
func encodeSpec(s *initSpec) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode spec: %w", err)
	}
	if len(b) > maxSpec {
		return nil, fmt.Errorf("spec of %d bytes is over the %d limit", len(b), maxSpec)
	}
	out := make([]byte, 4, 4+len(b))
	binary.BigEndian.PutUint32(out, uint32(len(b)))
	return append(out, b...), nil
}

func readSpec(r io.Reader) (*initSpec, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, fmt.Errorf("read spec length: %w", err)
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxSpec {
		return nil, fmt.Errorf("spec of %d bytes is over the %d limit", size, maxSpec)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	var s initSpec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode spec: %w", err)
	}
	return &s, nil
}

// initMsg is one line the init sends to the parent on the status pipe.
type initMsg struct {
	Kind   string `json:"kind"` // started, error or exit
	Code   int    `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Msg    string `json:"msg,omitempty"`
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
)
