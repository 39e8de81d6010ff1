package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ns"
)

// options is the command line, parsed but not yet checked against the
// filesystem.
type options struct {
	policy     nsrun.Policy
	policyFile string
	preset     string
	set        map[string]bool // the flags given
	args       []string
	dir        string
	envOps     []envOp
	timeout    time.Duration
	killAfter  time.Duration
	tty        nsrun.TTYMode
	report     string
	verbose    bool
	quiet      bool
	help       bool
	printProf  bool
}

// usageError is bad input on the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

type ruleFlag struct {
	rules  *[]nsrun.Rule
	access nsrun.Access
}

func (f ruleFlag) String() string { return "" }
func (f ruleFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty path")
	}
	*f.rules = append(*f.rules, nsrun.Rule{Path: v, Access: f.access})
	return nil
}

// pairFlag is an option that takes two arguments, as bubblewrap's do
// (--bind SRC DEST): parseOptions joins them with a NUL, which no argument
// can hold, before the flag package sees them.
type pairFlag struct {
	rules  *[]nsrun.Rule
	access nsrun.Access
}

func (f pairFlag) String() string { return "" }
func (f pairFlag) Set(v string) error {
	from, to, ok := strings.Cut(v, "\x00")
	if !ok {
		return errors.New("takes two arguments")
	}
	if from == "" || to == "" {
		return errors.New("empty path")
	}
	*f.rules = append(*f.rules, nsrun.Rule{Path: to, From: from, Access: f.access})
	return nil
}

// pairOptions are the options that take two arguments.
var pairOptions = map[string]string{
	"bind": "SRC DEST", "ro-bind": "SRC DEST", "dev-bind": "SRC DEST", "file": "SRC DEST", "symlink": "TARGET DEST",
}

// joinPairs rewrites each two-argument option before the command as one
// flag whose value holds both, NUL-separated.
func joinPairs(fs *flag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return append(out, args[i:]...), nil
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if form, ok := pairOptions[name]; ok {
			if hasValue {
				return nil, usagef("option %s takes two arguments: %s %s", dashes(name), dashes(name), form)
			}
			if i+2 >= len(args) || args[i+1] == "--" || args[i+2] == "--" {
				return nil, usagef("option %s needs two arguments: %s %s", dashes(name), dashes(name), form)
			}
			out = append(out, "--"+name+"="+args[i+1]+"\x00"+args[i+2])
			i += 2
			continue
		}
		out = append(out, a)
		f := fs.Lookup(name)
		if f == nil || hasValue {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out, nil
}

type funcFlag func(string) error

func (f funcFlag) String() string     { return "" }
func (f funcFlag) Set(v string) error { return f(v) }

// onceFlag is a flag that may be given once.
type onceFlag struct {
	set *bool
	f   func(string) error
}

func (f onceFlag) String() string { return "" }
func (f onceFlag) Set(v string) error {
	if *f.set {
		return errors.New("given twice; give it once")
	}
	*f.set = true
	return f.f(v)
}

// orderedBool is a boolean flag whose place among the others matters.
type orderedBool func() error

func (f orderedBool) String() string   { return "" }
func (f orderedBool) IsBoolFlag() bool { return true }
func (f orderedBool) Set(v string) error {
	if v != "true" {
		return errors.New("takes no value")
	}
	return f()
}

type idFlag struct{ dst **int }

func (f idFlag) String() string { return "" }
func (f idFlag) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%s is outside the ids a user namespace can map (0 to %d)", v, ns.NoID-1)
	}
	if err != nil {
		return errors.New("not a number")
	}
	if err := ns.CheckID(n); err != nil {
		return err
	}
	id := int(n)
	*f.dst = &id
	return nil
}

// optionNames are the flags that take a value, for error messages.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("nsrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	p := &o.policy
	fs.Var(ruleFlag{&p.Rules, nsrun.ReadWrite}, "rw", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.ReadOnly}, "ro", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.Deny}, "deny", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.Tmpfs}, "tmpfs", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.Overlay}, "overlay", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.Directory}, "dir", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.Device}, "dev", "")
	fs.Var(ruleFlag{&p.Rules, nsrun.BlockDevice}, "dev-block", "")
	fs.Var(pairFlag{&p.Rules, nsrun.ReadWrite}, "bind", "")
	fs.Var(pairFlag{&p.Rules, nsrun.ReadOnly}, "ro-bind", "")
	fs.Var(pairFlag{&p.Rules, nsrun.Device}, "dev-bind", "")
	fs.Var(pairFlag{&p.Rules, nsrun.Copy}, "file", "")
	fs.Var(pairFlag{&p.Rules, nsrun.Symlink}, "symlink", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		p.KeepChanges = v
		return nil
	}), "keep-changes", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		p.Root = v
		return nil
	}), "root", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		o.dir = v
		return nil
	}), "chdir", "")
	fs.Var(funcFlag(func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return errors.New("want KEY=VALUE")
		}
		o.envOps = append(o.envOps, envOp{kind: envSet, key: k, value: val})
		return nil
	}), "env", "")
	for name, kind := range map[string]envKind{"unset-env": envUnset, "keep-env": envKeep} {
		fs.Var(funcFlag(func(v string) error {
			if err := nsrun.CheckEnvPattern(v); err != nil {
				return fmt.Errorf("want a variable name or a pattern such as 'AWS_*' (%v)", err)
			}
			o.envOps = append(o.envOps, envOp{kind: kind, key: v})
			return nil
		}), name, "")
	}
	fs.Var(orderedBool(func() error {
		o.envOps = append(o.envOps, envOp{kind: envClear})
		return nil
	}), "clear-env", "")
	fs.Var(funcFlag(func(v string) error {
		switch v {
		case "":
			return errors.New("want private, persistent or a directory")
		case "private":
			p.Home = nsrun.HomePrivate
		case "persistent":
			p.Home = nsrun.HomePersistent
		default:
			p.Home, p.HomeDir = nsrun.HomePersistent, v
		}
		return nil
	}), "home", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" || len(v) > 64 || strings.ContainsAny(v, "/\x00") {
			return errors.New("want 1 to 64 characters without /")
		}
		p.Hostname = v
		return nil
	}), "hostname", "")
	fs.Var(idFlag{&p.UID}, "uid", "")
	fs.Var(idFlag{&p.GID}, "gid", "")
	fs.Var(funcFlag(func(v string) error {
		d, err := nsrun.ParseTimeout(v)
		if err != nil {
			return err
		}
		o.timeout = d
		return nil
	}), "timeout", "")
	fs.Var(funcFlag(func(v string) error {
		d, err := nsrun.ParseTimeout(v)
		o.killAfter = d
		return err
	}), "kill-after", "")
	fs.Var(funcFlag(func(v string) error {
		m, err := nsrun.ParseTTYMode(v)
		o.tty = m
		return err
	}), "tty", "")
	fs.Var(funcFlag(func(v string) error {
		switch v {
		case "none":
			p.Net = nsrun.NetNone
		case "host":
			p.Net = nsrun.NetHost
		default:
			return errors.New("want none or host")
		}
		return nil
	}), "net", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		o.report = v
		return nil
	}), "report", "")
	fs.Var(funcFlag(func(v string) error {
		switch v {
		case "full":
			p.Isolation = nsrun.IsolationFull
		case "landlock":
			p.Isolation = nsrun.IsolationLandlock
		default:
			return errors.New("want full or landlock")
		}
		return nil
	}), "isolation", "")
	fs.Var(funcFlag(func(v string) error {
		switch v {
		case "auto":
			p.Landlock = nsrun.LandlockAuto
		case "off":
			p.Landlock = nsrun.LandlockOff
		default:
			return errors.New("want auto or off")
		}
		return nil
	}), "landlock", "")
	fs.Var(funcFlag(func(v string) error {
		switch v {
		case "private":
			p.Proc = nsrun.ProcPrivate
		case "host":
			p.Proc = nsrun.ProcHost
		default:
			return errors.New("want private or host")
		}
		return nil
	}), "proc", "")
	fs.Var(funcFlag(func(v string) error {
		switch v {
		case "private":
			p.Sys = nsrun.SysPrivate
		case "host":
			p.Sys = nsrun.SysHost
		default:
			return errors.New("want private or host")
		}
		return nil
	}), "sys", "")
	fs.Var(funcFlag(func(v string) error {
		r, err := nsrun.ParsePortRange(v)
		p.AllowConnect = append(p.AllowConnect, r)
		return err
	}), "allow-connect", "")
	fs.Var(funcFlag(func(v string) error {
		r, err := nsrun.ParsePortRange(v)
		p.AllowBind = append(p.AllowBind, r)
		return err
	}), "allow-bind", "")
	fs.Var(funcFlag(func(v string) error {
		if _, err := netproxy.ParseRule(v); err != nil {
			return err
		}
		p.AllowHosts = append(p.AllowHosts, v)
		return nil
	}), "allow-host", "")
	fs.BoolVar(&p.AllowPrivateHosts, "allow-private-hosts", false, "")
	fs.Var(funcFlag(func(v string) error {
		if _, _, err := nsrun.ParseAddHost(v); err != nil {
			return err
		}
		p.AddHosts = append(p.AddHosts, v)
		return nil
	}), "add-host", "")
	fs.Var(funcFlag(func(v string) error {
		pb, err := nsrun.ParsePublish(v)
		p.Publish = append(p.Publish, pb)
		return err
	}), "publish", "")
	fs.Var(funcFlag(func(v string) error {
		r, err := nsrun.ParseHostPorts(v)
		p.HostPorts = append(p.HostPorts, r)
		return err
	}), "host-port", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" {
			return errors.New("want default, off or a profile file")
		}
		p.Seccomp = v
		return nil
	}), "seccomp", "")
	fs.BoolVar(&p.AllowUserns, "allow-userns", false, "")
	fs.BoolVar(&p.AllowHostUnixSockets, "allow-host-unix-sockets", false, "")
	fs.Var(funcFlag(func(v string) error {
		r, err := nsrun.ParseRlimit(v)
		p.Rlimits = append(p.Rlimits, r)
		return err
	}), "rlimit", "")
	fs.Var(funcFlag(func(v string) error {
		n, err := nsrun.ParseSize(v)
		p.TmpfsSize = n
		return err
	}), "tmpfs-size", "")
	fs.Var(funcFlag(func(v string) error {
		n, err := nsrun.ParseSize(v)
		p.Memory = n
		return err
	}), "memory", "")
	fs.Var(funcFlag(func(v string) error {
		n, err := nsrun.ParsePids(v)
		p.Pids = n
		return err
	}), "pids", "")
	fs.Var(funcFlag(func(v string) error {
		f, err := nsrun.ParseCPU(v)
		p.CPU = f
		return err
	}), "cpu", "")
	fs.BoolVar(&p.Strict, "strict", false, "")
	fs.BoolVar(&p.TraceDenials, "trace-denials", false, "")
	var policySet, presetSet bool
	fs.Var(onceFlag{&policySet, func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		o.policyFile = v
		return nil
	}}, "policy", "")
	fs.Var(onceFlag{&presetSet, func(v string) error {
		if _, ok := nsrun.Presets[v]; !ok {
			return fmt.Errorf("unknown preset (known: agent, build, readonly)")
		}
		o.preset = v
		return nil
	}}, "preset", "")
	fs.BoolVar(&o.verbose, "v", false, "")
	fs.BoolVar(&o.quiet, "q", false, "")
	fs.BoolVar(&o.printProf, "print-profile", false, "")
	fs.BoolVar(&o.help, "h", false, "")
	fs.BoolVar(&o.help, "help", false, "")
	return fs
}

// parseOptions parses options up to the first argument that is not one.
func parseOptions(args []string) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := newFlagSet(o)
	args, err := joinPairs(fs, args)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, flagError(err, fs)
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	o.args = fs.Args()
	return o, nil
}

// parseArgs parses the options before the command. The command starts at
// the first argument that is not an option, or after "--".
func parseArgs(args []string) (*options, error) {
	o, err := parseOptions(args)
	if err != nil || o.help || o.printProf {
		return o, err
	}
	if len(o.args) == 0 || o.args[0] == "" {
		return nil, usagef("no command given (usage: nsrun [OPTIONS] [--] COMMAND [ARG...])")
	}
	return o, nil
}

// flagError turns the flag package's messages into nsrun's one-line form.
func flagError(err error, fs *flag.FlagSet) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		if near := nearestOption(fs, name); near != "" {
			return usagef("unknown option %s (did you mean %s?)", dashes(name), dashes(near))
		}
		return usagef("unknown option %s", dashes(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usagef("option %s needs a value", dashes(strings.TrimLeft(name, "-")))
	}
	// invalid value "V" for flag -NAME: REASON
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if val, after, ok := strings.Cut(rest, " for flag -"); ok {
			name, reason, _ := strings.Cut(after, ": ")
			// The two arguments of a pair option, as given.
			val = strings.ReplaceAll(val, `\x00`, `" "`)
			return usagef("%s %s: %s", dashes(name), val, reason)
		}
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		return usagef("invalid boolean value %s", rest)
	}
	return usagef("%s", msg)
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nearestOption is the option a mistyped name most likely meant: the one
// fewest edits away, if at most two (one for names of up to four
// letters, none for one or two: so few edits reach too many), else "".
func nearestOption(fs *flag.FlagSet, name string) string {
	limit := 2
	switch {
	case len(name) <= 2:
		return ""
	case len(name) <= 4:
		limit = 1
	}
	best, bestD := "", limit+1
	consider := func(option string) {
		if d := editDistance(name, option); d < bestD || d == bestD && option < best {
			best, bestD = option, d
		}
	}
	fs.VisitAll(func(f *flag.Flag) { consider(f.Name) })
	consider("version") // run's, not a flag
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
