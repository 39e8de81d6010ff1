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
	clearEnv   bool
	timeout    time.Duration
	report     string
	verbose    bool
	quiet      bool
	help       bool
	printProf  bool
}

// envOp is one --env or --unset-env, applied in command-line order.
type envOp struct {
	key, value string
	unset      bool
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

type funcFlag func(string) error

func (f funcFlag) String() string     { return "" }
func (f funcFlag) Set(v string) error { return f(v) }

type idFlag struct{ dst **int }

func (f idFlag) String() string { return "" }
func (f idFlag) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
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
		o.envOps = append(o.envOps, envOp{key: k, value: val})
		return nil
	}), "env", "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" || strings.Contains(v, "=") {
			return errors.New("want a variable name")
		}
		o.envOps = append(o.envOps, envOp{key: v, unset: true})
		return nil
	}), "unset-env", "")
	fs.BoolVar(&o.clearEnv, "clear-env", false, "")
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
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			return errors.New("want a positive number of processes")
		}
		p.Pids = n
		return nil
	}), "pids", "")
	fs.Var(funcFlag(func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 4096 {
			return errors.New("want a positive fraction of one CPU, such as 0.5 or 2")
		}
		p.CPU = f
		return nil
	}), "cpu", "")
	fs.BoolVar(&p.Strict, "strict", false, "")
	fs.Var(funcFlag(func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		o.policyFile = v
		return nil
	}), "policy", "")
	fs.Var(funcFlag(func(v string) error {
		if _, ok := nsrun.Presets[v]; !ok {
			return fmt.Errorf("unknown preset (known: agent, build, readonly)")
		}
		o.preset = v
		return nil
	}), "preset", "")
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
	if err := fs.Parse(args); err != nil {
		return nil, flagError(err, args)
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
func flagError(err error, args []string) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usagef("unknown option %s", dashes(strings.TrimLeft(name, "-")))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usagef("option %s needs a value", dashes(strings.TrimLeft(name, "-")))
	}
	// invalid value "V" for flag -NAME: REASON
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if val, after, ok := strings.Cut(rest, " for flag -"); ok {
			name, reason, _ := strings.Cut(after, ": ")
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
