package nsrun

import (
	"errors"
	"fmt"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/values"
)

// Exit statuses with a meaning of their own, as the nsrun command uses them.
const (
	ExitTimeout       = 124 // the timeout ended the sandbox
	ExitSetup         = 125 // the sandbox could not be built; nothing ran
	ExitNotExecutable = 126 // the command exists but cannot be executed
	ExitNotFound      = 127 // the command was not found inside the sandbox
)

// ErrUnsupported is returned by Start where no backend exists yet.
var ErrUnsupported = errors.New("nsrun: no sandbox backend for this operating system")

// SetupError means the payload never ran: the sandbox could not be built
// (Code 125) or the command could not be started inside it (126, 127).
type SetupError struct {
	Code int
	// Op is the step that failed ("terminal", "plan mounts", ...), where
	// one is named.
	Op string
	// Err is the cause: errors.Is(err, syscall.EPERM) holds for a step the
	// kernel refused with EPERM, in nsrun or inside the sandbox's init.
	Err error
	// Msg, when set, is the whole message (a failure the init reported,
	// whose cause is known here by its errno alone).
	Msg string
}

func (e *SetupError) Error() string {
	return errs.Step(e.Op, e.Msg, e.Err)
}

func (e *SetupError) Unwrap() error { return e.Err }

// ExitError means the payload ran and did not exit 0, or that something
// from outside ended the sandbox.
type ExitError struct {
	Code     int  // the status nsrun exits with: the payload's, 128+signal, or 124
	Signal   int  // the signal that killed the payload, or 0
	TimedOut bool // Cmd.Timeout ended the sandbox; Code is 124
	// Err is the context's error when the end of the context ended the
	// sandbox (Unwrap returns it, so errors.Is(err, context.Canceled) or
	// context.DeadlineExceeded holds); Code is then the payload's status,
	// 0 included if it exited cleanly once told to.
	Err error
	// Appeared says what made nsrun end the sandbox, or what it found
	// planted after the payload ended: a name it keeps absent (see
	// Policy.ProtectGit). Code is then 137, or the payload's status (1 for
	// 0).
	Appeared string
	// Stderr is the payload's standard error (its first and last 16 KiB)
	// when Output collected it.
	Stderr []byte
}

func (e *ExitError) Error() string {
	status := fmt.Sprintf("payload exited with status %d", e.Code)
	if e.Signal != 0 {
		status = fmt.Sprintf("payload killed by signal %d", e.Signal)
	}
	switch {
	case e.Appeared != "":
		return e.Appeared
	case e.TimedOut:
		return "sandbox ended by timeout"
	case e.Err != nil:
		return fmt.Sprintf("sandbox ended by its context: %v (%s)", e.Err, status)
	}
	return status
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the status the nsrun command exits with after err from Run or
// Wait: 0 for nil, the code carried by an ExitError or SetupError, and 125
// for anything else (the sandbox could not be built).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	var se *SetupError
	if errors.As(err, &se) {
		return se.Code
	}
	return ExitSetup
}

// DirError is a working directory that cannot be used.
type DirError struct {
	Dir string
	Err error
}

func (e *DirError) Error() string { return fmt.Sprintf("directory %s: %v", e.Dir, e.Err) }
func (e *DirError) Unwrap() error { return e.Err }

// IDError is a uid or gid that cannot be mapped.
type IDError struct {
	Kind string // "uid" or "gid"
	Err  error
}

func (e *IDError) Error() string { return fmt.Sprintf("%s: %v", settingName(e.Kind), e.Err) }
func (e *IDError) Unwrap() error { return e.Err }

// IsolationError is a setting that needs namespaces, asked for with
// IsolationLandlock.
type IsolationError struct {
	Setting string // the option: "root", "tmpfs", "hostname", "uid", "bind", "overlay", ...
}

func (e *IsolationError) Error() string {
	return settingName(e.Setting) + " needs namespaces, which " + string(errs.IsolationLandlock) + " does not create"
}

// SeccompError is a seccomp profile that cannot be read, understood or
// compiled; nothing ran.
type SeccompError struct {
	Path string // "" or "default" for the default filter
	Err  error
}

func (e *SeccompError) Error() string { return fmt.Sprintf("seccomp %s: %v", e.Path, e.Err) }
func (e *SeccompError) Unwrap() error { return e.Err }

// NetError is a network setting that cannot be applied; nothing ran.
type NetError struct {
	Option string // the command line's name: "allow-host", "publish", "host-port", "add-host"
	Value  string // the value at fault, if one is
	Err    error
}

func (e *NetError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %v", settingName(e.Option), e.Err)
	}
	return fmt.Sprintf("%s %q: %v", settingName(e.Option), e.Value, e.Err)
}

func (e *NetError) Unwrap() error { return e.Err }

// LimitError is a cgroup limit that cannot be applied on this host; the
// sandbox is not started without it.
type LimitError struct {
	Option string // "memory", "pids" or "cpu"
	Err    error
}

func (e *LimitError) Error() string { return fmt.Sprintf("%s: %v", settingName(e.Option), e.Err) }

// settingNames are the library's names of the settings the typed errors
// carry by the command line's names (their fields keep those, as
// documented): a message names the setting a Go caller wrote.
var settingNames = map[string]string{
	"uid": "Policy.UID", "gid": "Policy.GID", "root": "Policy.Root", "hostname": "Policy.Hostname",
	"keep-changes": "Policy.KeepChanges", "tmpfs-size": "Policy.TmpfsSize",
	"memory": "Policy.Memory", "pids": "Policy.Pids", "cpu": "Policy.CPU",
	"allow-host": "Policy.AllowHosts", "allow-private-hosts": "Policy.AllowPrivateHosts", "add-host": "Policy.AddHosts",
	"publish": "Policy.Publish", "host-port": "Policy.HostPorts", "Dial": "Policy.Dial", "Resolve": "Policy.Resolve",
	"ro": "a ReadOnly rule", "rw": "a ReadWrite rule", "deny": "a Deny rule", "tmpfs": "a Tmpfs rule",
	"overlay": "an Overlay rule", "dir": "a Directory rule", "symlink": "a Symlink rule", "file": "a Copy rule",
	"dev": "a Device rule", "dev-block": "a BlockDevice rule", "ro-bind": "a ReadOnly rule with From",
	"bind": "a ReadWrite rule with From", "dev-bind": "a Device rule with From",
}

// settingName is the library's name of the setting the command line calls
// option.
func settingName(option string) string {
	if n, ok := settingNames[option]; ok {
		return n
	}
	return option
}
func (e *LimitError) Unwrap() error { return e.Err }

// checkValues refuses numbers out of the range the parsers take (ParseSize,
// ParsePids, ParseCPU), however the Policy was filled.
func (p *Policy) checkValues() error {
	switch {
	case p.TmpfsSize > MaxSize:
		return &SetupError{Code: ExitSetup, Err: errs.New("%s: %w", errs.TmpfsSize.With(fmt.Sprint(p.TmpfsSize)), values.ErrSizeAbove)}
	case p.Memory > MaxSize:
		return &LimitError{Option: "memory", Err: fmt.Errorf("%d %w", p.Memory, values.ErrSizeAbove)}
	case p.Pids > MaxPids:
		return &LimitError{Option: "pids", Err: fmt.Errorf("%d: %w", p.Pids, values.ErrPidsRange)}
	case p.CPU != 0 && !values.ValidCPU(p.CPU):
		return &LimitError{Option: "cpu", Err: fmt.Errorf("%g: %w", p.CPU, values.ErrCPURange)}
	}
	return nil
}
