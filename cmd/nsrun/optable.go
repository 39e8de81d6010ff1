package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ns"
)

// An option is one command-line option. The flag set, the help and
// docs/OPTIONS.md are all made from optionSections, so none of them can
// name an option the others lack.
type option struct {
	name  string // without dashes; a one-letter name is shown with one
	alias string // another name for it, or ""
	// arg is the argument as the help shows it: "" for a switch (a
	// boolean flag), two words for an option that takes two arguments.
	arg string
	// help is one line; `code` is shown without its quotes in the
	// terminal and as code in docs/OPTIONS.md.
	help string
	many bool // each use adds one; otherwise the last one counts
	once bool // may be given once
	set  func(o *options, v string) error
}

// takesTwo reports whether the option takes two arguments, as
// bubblewrap's --bind SRC DEST does.
func (opt *option) takesTwo() bool { return strings.Contains(opt.arg, " ") }

// A section is a group of options in the help and the docs.
type section struct {
	title   string
	intro   string // what holds for every option of the section, or ""
	options []option
}

var optionSections = []section{
	{"Filesystem", "Paths are the host's, shown at the same place inside; a DEST is a place inside (absolute). " +
		"The deepest rule covering a path decides; for the same path, the most restrictive.", []option{
		{name: "rw", arg: "PATH", many: true, set: rule(nsrun.ReadWrite),
			help: "PATH (directory, regular file or socket) writable"},
		{name: "ro", arg: "PATH", many: true, set: rule(nsrun.ReadOnly),
			help: "PATH read-only (e.g. `WS/.git` inside `--rw WS`)"},
		{name: "deny", arg: "PATH", many: true, set: rule(nsrun.Deny),
			help: "PATH hidden behind an empty read-only directory or file"},
		{name: "tmpfs", arg: "DIR", many: true, set: rule(nsrun.Tmpfs),
			help: "a fresh empty writable tmpfs at DIR"},
		{name: "root", arg: "DIR", set: func(o *options, v string) error { return setPath(&o.policy.Root, v) },
			help: "DIR, read-only, instead of the host root"},
		{name: "bind", arg: "SRC DEST", many: true, set: pair(nsrun.ReadWrite),
			help: "the host's SRC writable at DEST"},
		{name: "ro-bind", arg: "SRC DEST", many: true, set: pair(nsrun.ReadOnly),
			help: "the host's SRC read-only at DEST"},
		{name: "overlay", arg: "DIR", many: true, set: rule(nsrun.Overlay),
			help: "DIR writable, its host directory never changed: writes go to a layer of the sandbox's own, discarded"},
		{name: "keep-changes", arg: "DIR", set: func(o *options, v string) error { return setPath(&o.policy.KeepChanges, v) },
			help: "keep the `--overlay` layers in DIR: `nsrun changes [apply] DIR`"},
		{name: "dir", arg: "DEST", many: true, set: rule(nsrun.Directory),
			help: "an empty directory at DEST, where the tree has none"},
		{name: "symlink", arg: "TARGET DEST", many: true, set: pair(nsrun.Symlink),
			help: "a symlink at DEST to TARGET, as given"},
		{name: "file", arg: "SRC DEST", many: true, set: pair(nsrun.Copy),
			help: "a read-only copy of the host file SRC at DEST, made at start (up to 16 MiB)"},
		{name: "dev", arg: "PATH", many: true, set: rule(nsrun.Device),
			help: "the host character device PATH in `/dev` (`/dev/kvm`, `/dev/fuse`, `/dev/dri/renderD128`)"},
		{name: "dev-bind", arg: "SRC DEST", many: true, set: pair(nsrun.Device),
			help: "the host character device SRC at DEST, under `/dev`"},
		{name: "dev-block", arg: "PATH", many: true, set: rule(nsrun.BlockDevice),
			help: "a host block device in `/dev`: it reads and writes a whole filesystem, past every permission and rule"},
		{name: "sys", arg: "private|host", set: func(o *options, v string) error {
			return either(&o.policy.Sys, v, "private", nsrun.SysPrivate, "host", nsrun.SysHost)
		}, help: "a fresh read-only `/sys` of the sandbox's network namespace (default), or the host's, read-only"},
	}},
	{"Process and environment", "The four environment options apply in command-line order, " +
		"after the preset's and the policy file's edits.", []option{
		{name: "chdir", arg: "DIR", set: func(o *options, v string) error { return setPath(&o.dir, v) },
			help: "working directory inside (default: the current directory if it is visible inside, " +
				"else the first `--rw` directory, else `/`)"},
		{name: "env", arg: "K=V", many: true, set: setEnv,
			help: "set a variable"},
		{name: "unset-env", arg: "PATTERN", many: true, set: envPattern(envUnset),
			help: "remove the variables it matches (`'AWS_*'`: `*` any run of characters, `?` one; case ignored)"},
		{name: "keep-env", arg: "PATTERN", many: true, set: envPattern(envKeep),
			help: "take back the caller's variables it matches (over a preset's removal, or after `--clear-env`)"},
		{name: "clear-env", many: true, set: clearEnv,
			help: "remove every variable so far (`--env A=1 --clear-env` keeps nothing)"},
		{name: "home", arg: "private|persistent|DIR", set: setHome,
			help: "the payload's HOME: empty per run, nsrun's own kept between runs (the default of presets agent and build), or DIR"},
		{name: "hostname", arg: "NAME", set: setHostname,
			help: "host name inside"},
		{name: "uid", arg: "N", set: func(o *options, v string) error { return setID(&o.policy.UID, v) },
			help: "user id seen inside (default: the caller's, to which it maps)"},
		{name: "gid", arg: "N", set: func(o *options, v string) error { return setID(&o.policy.GID, v) },
			help: "group id seen inside (default: the caller's, to which it maps)"},
		{name: "timeout", arg: "D", set: func(o *options, v string) error { return parseTo(&o.timeout, nsrun.ParseTimeout, v) },
			help: "end the whole sandbox D after the command started (`30s`, `2m`, or whole seconds); exit 124"},
		{name: "idle-timeout", arg: "D", set: func(o *options, v string) error { return parseTo(&o.idleTimeout, nsrun.ParseTimeout, v) },
			help: "`nsrun session start` only: end the session once no command has run in it for D " +
				"(with `--timeout D`, the session ends D after it started)"},
		{name: "kill-after", arg: "D", set: func(o *options, v string) error { return parseTo(&o.killAfter, nsrun.ParseTimeout, v) },
			help: "with `--timeout`: SIGTERM to the command at the timeout, and the whole sandbox killed D later " +
				"if it has not ended"},
		{name: "tty", arg: "auto|always|never", set: func(o *options, v string) error { return parseTo(&o.tty, nsrun.ParseTTYMode, v) },
			help: "a pseudo-terminal of the sandbox's own, relayed to yours: when a standard stream is a terminal " +
				"(default), always, or never"},
	}},
	{"Resource limits", "`--memory`, `--pids` and `--cpu` limit the whole sandbox in a cgroup of its own (v2, else v1), " +
		"and are refused where nsrun cannot make one.", []option{
		{name: "rlimit", arg: "NAME=SOFT[:HARD]", many: true, set: func(o *options, v string) error {
			return parseAdd(&o.policy.Rlimits, nsrun.ParseRlimit, v)
		}, help: "a resource limit: nofile, nproc, as, cpu, fsize, core, stack, memlock (`unlimited` allowed; " +
			"core is 0 unless set)"},
		{name: "tmpfs-size", arg: "SIZE", set: func(o *options, v string) error { return parseTo(&o.policy.TmpfsSize, nsrun.ParseSize, v) },
			help: "caps the private `/tmp`, `/dev/shm` and each `--tmpfs`, each on its own (`64M`, `1G`; default: half of RAM)"},
		{name: "memory", arg: "SIZE", set: func(o *options, v string) error { return parseTo(&o.policy.Memory, nsrun.ParseSize, v) },
			help: "the memory of the whole sandbox, tmpfs pages included (bytes, or `K`, `M`, `G` or `T` of them, powers of 1024)"},
		{name: "pids", arg: "N", set: func(o *options, v string) error { return parseTo(&o.policy.Pids, nsrun.ParsePids, v) },
			help: "the processes and threads of the whole sandbox (1 to 4194304)"},
		{name: "cpu", arg: "FRACTION", set: func(o *options, v string) error { return parseTo(&o.policy.CPU, nsrun.ParseCPU, v) },
			help: "the CPUs the whole sandbox may use (0.01 to 4096)"},
	}},
	{"Network", "", []option{
		{name: "net", arg: "none|host", set: func(o *options, v string) error {
			return either(&o.policy.Net, v, "none", nsrun.NetNone, "host", nsrun.NetHost)
		}, help: "own network namespace with only `lo`, up (default), or the host's network"},
		{name: "allow-connect", arg: "[tcp:|udp:]PORT[-LAST]", many: true, set: func(o *options, v string) error {
			return parseAdd(&o.policy.AllowConnect, nsrun.ParsePortRange, v)
		}, help: "the only ports the payload may connect to (Landlock: TCP from ABI 4, UDP from ABI 10)"},
		{name: "allow-bind", arg: "[tcp:|udp:]PORT[-LAST]", many: true, set: func(o *options, v string) error {
			return parseAdd(&o.policy.AllowBind, nsrun.ParsePortRange, v)
		}, help: "the only ports the payload may bind and listen on"},
		{name: "allow-host", arg: "PATTERN[:PORT]", many: true, set: addAllowHost,
			help: "the hosts the payload may reach, through nsrun: a name, `*.domain`, an IP address or CIDR; " +
				"without a port, 80 and 443"},
		{name: "allow-private-hosts", set: func(o *options, v string) error { return setBool(&o.policy.AllowPrivateHosts, v) },
			help: "let allowed names lead to loopback, link-local and private addresses"},
		{name: "add-host", arg: "NAME=ADDR", many: true, set: addHost,
			help: "nsrun resolves NAME to ADDR (it allows nothing by itself)"},
		{name: "publish", arg: "[ADDR:]HOSTPORT:PORT", many: true, set: func(o *options, v string) error {
			return parseAdd(&o.policy.Publish, nsrun.ParsePublish, v)
		}, help: "the host listens on ADDR:HOSTPORT (default 127.0.0.1) and carries each connection to 127.0.0.1:PORT inside"},
		{name: "host-port", arg: "PORT[-LAST]", many: true, set: func(o *options, v string) error {
			return parseAdd(&o.policy.HostPorts, nsrun.ParseHostPorts, v)
		}, help: "127.0.0.1:PORT inside reaches the host's 127.0.0.1:PORT (TCP), and nothing else of the host"},
	}},
	{"Security layers", "", []option{
		{name: "isolation", arg: "full|landlock", set: func(o *options, v string) error {
			return either(&o.policy.Isolation, v, "full", nsrun.IsolationFull, "landlock", nsrun.IsolationLandlock)
		}, help: "namespaces, mounts and Landlock (default), or Landlock alone"},
		{name: "landlock", arg: "auto|off", set: func(o *options, v string) error {
			return either(&o.policy.Landlock, v, "auto", nsrun.LandlockAuto, "off", nsrun.LandlockOff)
		}, help: "apply what the kernel's Landlock offers and report what it lacks (default), or leave the layer out"},
		{name: "seccomp", arg: "default|off|FILE", set: setSeccomp,
			help: "nsrun's filter (default), none, or an OCI runtime-spec / Docker seccomp JSON profile"},
		{name: "allow-userns", set: func(o *options, v string) error { return setBool(&o.policy.AllowUserns, v) },
			help: "let the payload create namespaces, e.g. to run a nested sandbox (needs `--landlock off`)"},
		{name: "proc", arg: "private|host", set: func(o *options, v string) error {
			return either(&o.policy.Proc, v, "private", nsrun.ProcPrivate, "host", nsrun.ProcHost)
		}, help: "a fresh `/proc` (default), or the one nsrun sees, read-only, where a fresh one cannot be mounted " +
			"(a masked `/proc`)"},
		{name: "allow-host-unix-sockets", set: func(o *options, v string) error { return setBool(&o.policy.AllowHostUnixSockets, v) },
			help: "with `--isolation landlock`: do not keep the payload from the host's unix sockets " +
				"(reported as not enforced)"},
		{name: "strict", set: func(o *options, v string) error { return setBool(&o.policy.Strict, v) },
			help: "exit 125 before starting the command unless every layer is fully enforced"},
		{name: "trace-denials", set: func(o *options, v string) error { return setBool(&o.policy.TraceDenials, v) },
			help: "say what the sandbox refused: a summary on stderr at exit, the list in the report's `\"denials\"`"},
	}},
	{"Policy", "", []option{
		{name: "policy", arg: "FILE", once: true, set: func(o *options, v string) error { return setPath(&o.policyFile, v) },
			help: "a JSON policy file (its rules default to the baseline source); the flags apply on top, as the user source"},
		{name: "preset", arg: "NAME", once: true, set: setPreset,
			help: "start from agent, build or readonly (`nsrun policy show --preset NAME` prints it)"},
	}},
	{"Output", "", []option{
		{name: "report", arg: "FILE", set: func(o *options, v string) error { return setPath(&o.report, v) },
			help: "write the JSON report once the sandbox is gone (`-` is stderr)"},
		{name: "v", set: func(o *options, v string) error { return setBool(&o.verbose, v) },
			help: "log each setup step, with timings, to stderr"},
		{name: "q", set: func(o *options, v string) error { return setBool(&o.quiet, v) },
			help: "no warnings, nor the lines saying a limit acted"},
		{name: "print-profile", set: func(o *options, v string) error { return setBool(&o.printProf, v) },
			help: "print the macOS Seatbelt profile of the policy, and exit"},
		{name: "help", alias: "h", set: func(o *options, v string) error { return setBool(&o.help, v) },
			help: "print this help, and exit"},
	}},
}

// rule is an option that adds a rule for its PATH.
func rule(access nsrun.Access) func(*options, string) error {
	return func(o *options, v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		o.policy.Rules = append(o.policy.Rules, nsrun.Rule{Path: v, Access: access})
		return nil
	}
}

// pair is an option that adds a rule for its two arguments, which
// parseOptions joins with a NUL: no argument can hold one.
func pair(access nsrun.Access) func(*options, string) error {
	return func(o *options, v string) error {
		from, to, ok := strings.Cut(v, "\x00")
		if !ok {
			return errors.New("takes two arguments")
		}
		if from == "" || to == "" {
			return errors.New("empty path")
		}
		o.policy.Rules = append(o.policy.Rules, nsrun.Rule{Path: to, From: from, Access: access})
		return nil
	}
}

func setPath(dst *string, v string) error {
	if v == "" {
		return errors.New("empty path")
	}
	*dst = v
	return nil
}

// setBool is a switch, which takes what flag.Bool takes (--strict=false)
// and fails with its words.
func setBool(dst *bool, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return errors.New("parse error")
	}
	*dst = b
	return nil
}

// parseTo sets dst to what a library parser makes of v.
func parseTo[T any](dst *T, parse func(string) (T, error), v string) error {
	x, err := parse(v)
	if err != nil {
		return err
	}
	*dst = x
	return nil
}

// parseAdd appends what a library parser makes of v.
func parseAdd[T any](dst *[]T, parse func(string) (T, error), v string) error {
	x, err := parse(v)
	if err != nil {
		return err
	}
	*dst = append(*dst, x)
	return nil
}

// either sets dst to the value one of two names stands for.
func either[T any](dst *T, v, a string, av T, b string, bv T) error {
	switch v {
	case a:
		*dst = av
	case b:
		*dst = bv
	default:
		return fmt.Errorf("want %s or %s", a, b)
	}
	return nil
}

func setEnv(o *options, v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return errors.New("want KEY=VALUE")
	}
	o.envOps = append(o.envOps, envOp{kind: envSet, key: k, value: val})
	return nil
}

func envPattern(kind envKind) func(*options, string) error {
	return func(o *options, v string) error {
		if err := nsrun.CheckEnvPattern(v); err != nil {
			return fmt.Errorf("want a variable name or a pattern such as 'AWS_*' (%v)", err)
		}
		o.envOps = append(o.envOps, envOp{kind: kind, key: v})
		return nil
	}
}

// clearEnv is a switch whose place among the others matters, so it takes
// no value: --clear-env=false would read as keeping the variables.
func clearEnv(o *options, v string) error {
	if v != "true" {
		return errors.New("takes no value")
	}
	o.envOps = append(o.envOps, envOp{kind: envClear})
	return nil
}

func setHome(o *options, v string) error {
	p := &o.policy
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
}

func setHostname(o *options, v string) error {
	if v == "" || len(v) > 64 || strings.ContainsAny(v, "/\x00") {
		return errors.New("want 1 to 64 characters without /")
	}
	o.policy.Hostname = v
	return nil
}

func setID(dst **int, v string) error {
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
	*dst = &id
	return nil
}

func addAllowHost(o *options, v string) error {
	if _, err := netproxy.ParseRule(v); err != nil {
		return err
	}
	o.policy.AllowHosts = append(o.policy.AllowHosts, v)
	return nil
}

func addHost(o *options, v string) error {
	if _, _, err := nsrun.ParseAddHost(v); err != nil {
		return err
	}
	o.policy.AddHosts = append(o.policy.AddHosts, v)
	return nil
}

func setSeccomp(o *options, v string) error {
	if v == "" {
		return errors.New("want default, off or a profile file")
	}
	o.policy.Seccomp = v
	return nil
}

func setPreset(o *options, v string) error {
	if _, ok := nsrun.Presets[v]; !ok {
		return fmt.Errorf("unknown preset (known: agent, build, readonly)")
	}
	o.preset = v
	return nil
}
