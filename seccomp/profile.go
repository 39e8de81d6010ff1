package seccomp

import "fmt"

// ActionKind is what a filter does with a matching call.
type ActionKind int

// Actions, as the OCI runtime spec names them.
const (
	ActAllow ActionKind = iota
	ActErrno
	ActKillProcess
	ActKillThread
	ActTrap
	ActTrace
	ActLog
	// ActNotify hands the call to the supervisor holding the filter's
	// listener (SECCOMP_RET_USER_NOTIF), which answers it. Profiles read
	// from files cannot ask for it.
	ActNotify
)

var actionNames = map[ActionKind]string{ActAllow: "allow", ActErrno: "errno", ActKillProcess: "kill_process",
	ActKillThread: "kill_thread", ActTrap: "trap", ActTrace: "trace", ActLog: "log", ActNotify: "notify"}

func (k ActionKind) String() string {
	if n, ok := actionNames[k]; ok {
		return n
	}
	return fmt.Sprintf("ActionKind(%d)", int(k))
}

// Action is an ActionKind with its errno (ActErrno) or trace value.
type Action struct {
	Kind  ActionKind
	Errno uint16
}

// Op compares a syscall argument.
type Op int

// Comparisons. MaskedEq compares (arg & Value) with (ValueTwo & Value).
const (
	OpNE Op = iota
	OpLT
	OpLE
	OpEQ
	OpGE
	OpGT
	OpMaskedEq
)

// Arg is one condition on a syscall argument; a rule's conditions all hold
// for it to match.
type Arg struct {
	Index    uint
	Value    uint64
	ValueTwo uint64
	Op       Op
}

// Rule applies Action to the calls Names when every Arg condition holds.
type Rule struct {
	Names  []string
	Action Action
	Args   []Arg
	Reason string // why the default filter has it
}

// Profile is a whole filter: the action for calls no rule matches, and the
// rules. Calls from other architectures than the native one (and the
// listed extra ones) kill the process.
type Profile struct {
	Name          string
	DefaultAction Action
	ExtraArches   []string // e.g. "x86" for i386 on amd64; their calls are killed
	Rules         []Rule
	// Skipped are allowed calls of a loaded profile that this system does
	// not know; they stay denied, which is the safe side.
	Skipped []string
}
