package windows

import (
	"fmt"
	"path/filepath"
	"strings"
)

// CreateRestrictedToken flags.
const (
	DisableMaxPrivilege = 0x1
	SandboxInert        = 0x2
	LuaToken            = 0x4
	WriteRestricted     = 0x8
)

// TokenFlags are the flags every sandbox token is made with.
const TokenFlags = DisableMaxPrivilege | LuaToken | WriteRestricted

// SID names a restricting SID of the plan.
type SID int

const (
	// SandboxSID is a fresh random SID for one sandbox.
	SandboxSID SID = iota + 1
	// LogonSID is the logon session's SID.
	LogonSID
	// Everyone is S-1-1-0.
	Everyone
)

// Access rights (winnt.h).
const (
	rightDelete      = 0x00010000
	rightReadControl = 0x00020000
	rightSynchronize = 0x00100000
	fileReadData     = 0x0001
	fileWriteData    = 0x0002
	fileAppendData   = 0x0004
	fileReadEA       = 0x0008
	fileWriteEA      = 0x0010
	fileExecute      = 0x0020
	fileDeleteChild  = 0x0040
	fileReadAttrs    = 0x0080
	fileWriteAttrs   = 0x0100
	fileGenericRead  = rightReadControl | fileReadData | fileReadAttrs | fileReadEA | rightSynchronize
	fileGenericWrite = rightReadControl | fileWriteData | fileWriteAttrs | fileWriteEA | fileAppendData | rightSynchronize
	fileGenericExec  = rightReadControl | fileReadAttrs | fileExecute | rightSynchronize
	fileWriteRights  = fileWriteData | fileAppendData | fileWriteEA | fileWriteAttrs | rightDelete | fileDeleteChild
	fileAllRights    = 0x001F01FF
	objectInherit    = 0x1
	containerInherit = 0x2
	// Modify is what Windows' "Modify" permission grants.
	Modify = fileGenericRead | fileGenericWrite | fileGenericExec | rightDelete
)

// Kind of an ACE.
type Kind int

// ACE kinds.
const (
	Allow Kind = iota + 1
	Deny
)

// ACE is one access control entry the sandbox adds.
type ACE struct {
	Path    string
	Kind    Kind
	Rights  uint32
	Inherit uint32 // object and container inheritance
}

// Input is what the plan depends on: absolute, clean Windows paths.
type Input struct {
	Writable []string // writable roots
	ReadOnly []string // inside writable roots: no writes
	Denied   []string // inside writable roots: nothing
	TempDir  string   // the sandbox's own temp dir
}

// Plan is how a sandbox is made on Windows.
type Plan struct {
	TokenFlags      uint32
	RestrictingSIDs []SID
	ACEs            []ACE
	TempDir         string
	NotEnforced     []string
}

// NotEnforced is what the Windows backend cannot do.
var NotEnforced = []string{
	"reads are not confined: --deny and --ro stop writes only",
	"directories writable by Everyone or the logon session stay writable",
	"no network isolation",
	"no PID or IPC isolation, no seccomp",
}

func within(p, base string) bool {
	p, base = strings.ToLower(p), strings.ToLower(base)
	return p == base || strings.HasPrefix(p, strings.TrimSuffix(base, `\`)+`\`)
}

// MakePlan decides the token and the ACEs. A read-only or denied path
// must lie inside a writable root: elsewhere the sandbox cannot write
// anyway, and a DENY ACE there would only disturb other processes.
func MakePlan(in Input) (Plan, error) {
	p := Plan{
		TokenFlags:      TokenFlags,
		RestrictingSIDs: []SID{SandboxSID, LogonSID, Everyone},
		TempDir:         in.TempDir,
		NotEnforced:     NotEnforced,
	}
	inherit := uint32(objectInherit | containerInherit)
	for _, w := range append(append([]string{}, in.Writable...), in.TempDir) {
		if w == "" {
			continue
		}
		if !filepath.IsAbs(w) && !isWindowsAbs(w) {
			return Plan{}, fmt.Errorf("writable root %q is not absolute", w)
		}
		p.ACEs = append(p.ACEs, ACE{Path: w, Kind: Allow, Rights: Modify, Inherit: inherit})
	}
	deny := func(paths []string, rights uint32, what string) error {
		for _, d := range paths {
			inside := false
			for _, w := range in.Writable {
				inside = inside || within(d, w)
			}
			if !inside {
				return fmt.Errorf("%s %s is outside every writable root: nothing to take away there", what, d)
			}
			p.ACEs = append(p.ACEs, ACE{Path: d, Kind: Deny, Rights: rights, Inherit: inherit})
		}
		return nil
	}
	if err := deny(in.ReadOnly, fileWriteRights, "read-only"); err != nil {
		return Plan{}, err
	}
	if err := deny(in.Denied, fileAllRights, "deny"); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// isWindowsAbs reports whether p is a drive or UNC path, so the planner
// can be tested on any system.
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}
