package errs

import (
	"fmt"
	"sort"
	"strings"
)

// Setting is a setting of the library (a Policy or Cmd field, or one value
// of it) as the library's errors name it. The nsrun command names its
// flag instead: it rewords an error with Reword and a table that holds a
// flag for every setting of Settings (its test checks that none is
// missing).
type Setting string

// The settings errors name. A value of the caller's (a path, a host)
// follows the name, in both wordings (With).
const (
	AllowBind            Setting = "Policy.AllowBind"
	AllowConnect         Setting = "Policy.AllowConnect"
	AllowHost            Setting = "Policy.AllowHosts"
	AllowHostUnixSockets Setting = "Policy.AllowHostUnixSockets"
	AllowUserns          Setting = "Policy.AllowUserns"
	EnvPatterns          Setting = "environment patterns (Policy.UnsetEnv, Policy.KeepEnv)"
	FilteredNetwork      Setting = "a filtered network (Policy.AllowHosts, Policy.HostAllowed, Policy.Publish, Policy.HostPorts)"
	HomeOwn              Setting = "a home of the sandbox's own (Policy.Home)"
	Hostname             Setting = "Policy.Hostname"
	HomeDir              Setting = "Policy.HomeDir"
	HomePersistent       Setting = "Policy.Home = HomePersistent"
	HostPorts            Setting = "Policy.HostPorts"
	IsolationFull        Setting = "Policy.Isolation = IsolationFull"
	IsolationLandlock    Setting = "Policy.Isolation = IsolationLandlock"
	KeepChanges          Setting = "Policy.KeepChanges"
	LandlockOff          Setting = "Policy.Landlock = LandlockOff"
	NetHost              Setting = "Policy.Net = NetHost"
	NetNone              Setting = "Policy.Net = NetNone"
	PortRules            Setting = "port rules (Policy.AllowConnect, Policy.AllowBind)"
	ProcHost             Setting = "Policy.Proc = ProcHost"
	ProtectGit           Setting = "git protection (Policy.ProtectGit)"
	ResourceLimits       Setting = "resource limits (Policy.Memory, Policy.Pids, Policy.CPU, Policy.Rlimits, Policy.TmpfsSize)"
	Root                 Setting = "Policy.Root"
	RuleBlockDevice      Setting = "Policy.Rules BlockDevice"
	RuleDeny             Setting = "Policy.Rules Deny"
	RuleOverlay          Setting = "Policy.Rules Overlay"
	RuleReadOnly         Setting = "Policy.Rules ReadOnly"
	RuleReadWrite        Setting = "Policy.Rules ReadWrite"
	RuleTmpfs            Setting = "Policy.Rules Tmpfs"
	SeccompProfile       Setting = "a seccomp profile (Policy.Seccomp)"
	Strict               Setting = "Policy.Strict"
	SysHost              Setting = "Policy.Sys = SysHost"
	TraceDenials         Setting = "Policy.TraceDenials"
	TmpfsSize            Setting = "Policy.TmpfsSize"
	TTYAlways            Setting = "Cmd.TTY = TTYAlways"
	UIDGID               Setting = "Policy.UID and Policy.GID"
)

// Settings are all the settings above, for the nsrun command's test.
var Settings = []Setting{AllowBind, AllowConnect, AllowHost, AllowHostUnixSockets, AllowUserns,
	EnvPatterns, FilteredNetwork, HomeOwn, Hostname, HomeDir, HomePersistent, HostPorts, IsolationFull,
	IsolationLandlock, KeepChanges, LandlockOff, NetHost, NetNone, PortRules, ProcHost, ProtectGit,
	ResourceLimits, Root, RuleBlockDevice, RuleDeny, RuleOverlay, RuleReadOnly, RuleReadWrite, RuleTmpfs,
	SeccompProfile, Strict, SysHost, TmpfsSize, TraceDenials, TTYAlways, UIDGID}

// Word is a setting with a value of the caller's.
type Word struct {
	Setting Setting
	Value   string
}

// With is s with the value v: "Policy.HomeDir /x".
func (s Setting) With(v string) Word { return Word{s, v} }

// Text is a message that names settings. Its Error words them as the
// library does; Say words them another way. Its causes (the errors among
// its values) stay reachable: errors.Is and errors.As see them.
type Text struct {
	format string
	args   []any
}

// New is the message of format and a, as fmt.Errorf words it, where an
// argument that is a Setting or a Word is a setting named, and %w marks
// a cause as it does for fmt.Errorf.
func New(format string, a ...any) *Text {
	return &Text{format: strings.ReplaceAll(format, "%w", "%v"), args: a}
}

func (t *Text) Error() string { return t.Say(nil) }

// Say is the message with each setting named by name (nil: the library's
// name).
func (t *Text) Say(name func(Setting) string) string {
	args := make([]any, len(t.args))
	for i, a := range t.args {
		switch v := a.(type) {
		case Setting:
			args[i] = say(v, "", name)
		case Word:
			args[i] = say(v.Setting, v.Value, name)
		case *Text:
			args[i] = v.Say(name)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(t.format, args...)
}

func say(s Setting, v string, name func(Setting) string) string {
	n := string(s)
	if name != nil {
		n = name(s)
	}
	if v == "" {
		return n
	}
	return n + " " + v
}

// Unwrap is the causes among the message's values.
func (t *Text) Unwrap() []error {
	var out []error
	for _, a := range t.args {
		if err, ok := a.(error); ok {
			out = append(out, err)
		}
	}
	return out
}

// Reword is msg, said of err, with the settings of every Text in err's
// chain named by name instead of as the library names them: msg holds
// each one's library wording, as err.Error() does, or a message built
// from a typed error's fields. A setting's name that is left (a typed
// error that words its fields with a Text it does not wrap) is replaced
// as it stands: the names are distinctive enough.
func Reword(msg string, err error, name func(Setting) string) string {
	msg = rewordChain(msg, err, name)
	names := append([]Setting(nil), Settings...)
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, s := range names {
		msg = strings.ReplaceAll(msg, string(s), name(s))
	}
	return msg
}

func rewordChain(msg string, err error, name func(Setting) string) string {
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if t, ok := e.(*Text); ok {
			msg = strings.ReplaceAll(msg, t.Error(), t.Say(name))
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return msg
}
