package bwrap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// simple are the options without arguments. It and withArgs are built
// on first use: only nsrun run as bwrap reads them, while every nsrun
// process (the CLI, the sandbox's init) would build them at start.
var simple = sync.OnceValue(func() map[string]func(*Args) {
	return map[string]func(*Args){
		"--help":         func(a *Args) { a.Help = true },
		"--version":      func(a *Args) { a.Version = true },
		"--level-prefix": func(a *Args) { a.LevelPrefix = true },
		// bubblewrap's --unshare-all takes the -try variants of user and
		// cgroup, for kernels without them.
		"--unshare-all": func(a *Args) {
			u := &a.Unshare
			u.UserTry, u.IPC, u.PID, u.UTS, u.CgroupTry, u.Net = true, true, true, true, true, true
		},
		"--unshare-user":            func(a *Args) { a.Unshare.User = true },
		"--unshare-user-try":        func(a *Args) { a.Unshare.UserTry = true },
		"--unshare-ipc":             func(a *Args) { a.Unshare.IPC = true },
		"--unshare-pid":             func(a *Args) { a.Unshare.PID = true },
		"--unshare-net":             func(a *Args) { a.Unshare.Net = true },
		"--unshare-uts":             func(a *Args) { a.Unshare.UTS = true },
		"--unshare-cgroup":          func(a *Args) { a.Unshare.Cgroup = true },
		"--unshare-cgroup-try":      func(a *Args) { a.Unshare.CgroupTry = true },
		"--share-net":               func(a *Args) { a.Unshare.Net = false },
		"--disable-userns":          func(a *Args) { a.DisableUserns = true },
		"--assert-userns-disabled":  func(a *Args) { a.AssertUsernsDisabled = true },
		"--clearenv":                func(a *Args) { a.Env = append(a.Env, EnvOp{Kind: ClearEnv}) },
		"--new-session":             func(a *Args) { a.NewSession = true },
		"--die-with-parent":         func(a *Args) { a.DieWithParent = true },
		"--as-pid-1":                func(a *Args) { a.AsPid1 = true },
		"--not-a-security-boundary": func(a *Args) { a.NotASecurityBoundary = true },
	}
})

// argSpec is an option with n arguments: missing is bubblewrap's message
// when fewer follow, do takes them (vals has exactly n).
type argSpec struct {
	n       int
	missing func(opt string) string
	do      func(a *Args, opt string, vals []string) error
}

// bubblewrap words its "missing argument" messages in four ways.
func takesAnArgument(opt string) string { return opt + " takes an argument" }
func takesOneArgument(opt string) string {
	return opt + " takes one argument"
}
func takesTwoArguments(opt string) string { return opt + " takes two arguments" }
func takesThreeArguments(opt string) string {
	return opt + " takes three arguments"
}

// withArgs are the options that take arguments (but --args and
// --overlay-src, which parse handles).
var withArgs = sync.OnceValue(func() map[string]argSpec {
	return map[string]argSpec{
		"--argv0": {1, takesOneArgument, func(a *Args, _ string, v []string) error {
			if a.Argv0Set {
				return errorf("--argv0 used multiple times")
			}
			a.Argv0, a.Argv0Set = v[0], true
			return nil
		}},
		"--chdir": {1, takesOneArgument, func(a *Args, opt string, v []string) error {
			if a.ChdirSet {
				a.warnOnlyLast(opt)
			}
			a.Chdir, a.ChdirSet = v[0], true
			return nil
		}},
		"--remount-ro": {1, takesOneArgument, dest(RemountRO)},

		"--bind":         {2, takesTwoArguments, bind(Bind)},
		"--bind-try":     {2, takesTwoArguments, bind(Bind)},
		"--ro-bind":      {2, takesTwoArguments, bind(ROBind)},
		"--ro-bind-try":  {2, takesTwoArguments, bind(ROBind)},
		"--dev-bind":     {2, takesTwoArguments, bind(DevBind)},
		"--dev-bind-try": {2, takesTwoArguments, bind(DevBind)},
		// bubblewrap names --bind-fd in the message for both.
		"--bind-fd":    {2, func(string) string { return takesTwoArguments("--bind-fd") }, bindFD(Bind)},
		"--ro-bind-fd": {2, func(string) string { return takesTwoArguments("--bind-fd") }, bindFD(ROBind)},

		"--overlay": {3, takesThreeArguments, func(a *Args, opt string, v []string) error {
			if len(a.overlaySrcs) < 1 {
				return errorf("--overlay requires at least one --overlay-src")
			}
			op := newOp(Overlay, opt)
			op.Source, op.Workdir, op.Dest, op.Sources = v[0], v[1], v[2], a.takeOverlaySrcs()
			a.add(op)
			return nil
		}},
		"--tmp-overlay": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			if len(a.overlaySrcs) < 1 {
				return errorf("--tmp-overlay requires at least one --overlay-src")
			}
			op := newOp(TmpOverlay, opt)
			op.Dest, op.Sources = v[0], a.takeOverlaySrcs()
			a.add(op)
			return nil
		}},
		"--ro-overlay": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			if len(a.overlaySrcs) < 2 {
				return errorf("--ro-overlay requires at least two --overlay-src")
			}
			op := newOp(ROOverlay, opt)
			op.Dest, op.Sources = v[0], a.takeOverlaySrcs()
			a.add(op)
			return nil
		}},

		"--proc":   {1, takesAnArgument, dest(Proc)},
		"--dev":    {1, takesAnArgument, dest(Dev)},
		"--mqueue": {1, takesAnArgument, dest(Mqueue)},
		"--tmpfs": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			op := newOp(Tmpfs, opt)
			op.Dest, op.Perms, op.Size = v[0], a.takePerms(0o755), a.takeSize()
			a.add(op)
			return nil
		}},
		"--dir": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			op := newOp(Dir, opt)
			op.Dest, op.Perms = v[0], a.takePerms(0o755)
			a.add(op)
			return nil
		}},
		"--file":         {2, takesTwoArguments, data(File, 0o666)},
		"--bind-data":    {2, takesTwoArguments, data(BindData, 0o600)},
		"--ro-bind-data": {2, takesTwoArguments, data(ROBindData, 0o600)},
		"--symlink": {2, takesTwoArguments, func(a *Args, opt string, v []string) error {
			op := newOp(Symlink, opt)
			op.Source, op.Dest = v[0], v[1]
			a.add(op)
			return nil
		}},
		"--chmod": {2, takesTwoArguments, func(a *Args, opt string, v []string) error {
			perms, ok := parseOctal(v[0])
			if !ok {
				return errorf("--chmod takes an octal argument <= 07777")
			}
			op := newOp(Chmod, opt)
			op.Dest, op.Perms = v[1], perms
			a.add(op)
			return nil
		}},

		"--exec-label": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			if a.ExecLabel != "" {
				a.warnOnlyLast(opt)
			}
			a.ExecLabel = v[0]
			return nil
		}},
		"--file-label": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			if a.FileLabel != "" {
				a.warnOnlyLast(opt)
			}
			a.FileLabel = v[0]
			return nil
		}},
		"--lock-file": {1, takesAnArgument, func(a *Args, _ string, v []string) error {
			a.LockFiles = append(a.LockFiles, v[0])
			return nil
		}},

		"--sync-fd":         {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.SyncFD })},
		"--block-fd":        {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.BlockFD })},
		"--userns-block-fd": {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.UsernsBlockFD })},
		"--info-fd":         {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.InfoFD })},
		"--json-status-fd":  {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.JSONStatusFD })},
		"--userns":          {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.UsernsFD })},
		"--userns2":         {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.Userns2FD })},
		"--pidns":           {1, takesAnArgument, lastFD(func(a *Args) *int { return &a.PidnsFD })},
		"--seccomp": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			if len(a.AddSeccompFDs) > 0 {
				return errorf("--seccomp cannot be combined with --add-seccomp-fd")
			}
			return lastFD(func(a *Args) *int { return &a.SeccompFD })(a, opt, v)
		}},
		"--add-seccomp-fd": {1, takesAnArgument, func(a *Args, _ string, v []string) error {
			if a.SeccompFD != -1 {
				return errorf("--add-seccomp-fd cannot be combined with --seccomp")
			}
			fd, err := parseFD(v[0])
			if err != nil {
				return err
			}
			a.AddSeccompFDs = append(a.AddSeccompFDs, fd)
			return nil
		}},

		"--setenv": {2, takesTwoArguments, func(a *Args, _ string, v []string) error {
			if !validEnvName(v[0]) {
				return errorf("setenv failed")
			}
			a.Env = append(a.Env, EnvOp{Kind: SetEnv, Name: v[0], Value: v[1]})
			return nil
		}},
		"--unsetenv": {1, takesAnArgument, func(a *Args, _ string, v []string) error {
			if !validEnvName(v[0]) {
				return errorf("unsetenv failed")
			}
			a.Env = append(a.Env, EnvOp{Kind: UnsetEnv, Name: v[0]})
			return nil
		}},
		"--uid": {1, takesAnArgument, id("uid", func(a *Args) *int { return &a.UID })},
		"--gid": {1, takesAnArgument, id("gid", func(a *Args) *int { return &a.GID })},
		"--hostname": {1, takesAnArgument, func(a *Args, opt string, v []string) error {
			if a.HostnameSet {
				a.warnOnlyLast(opt)
			}
			a.Hostname, a.HostnameSet = v[0], true
			return nil
		}},
		"--cap-add":  {1, takesAnArgument, capOp(true)},
		"--cap-drop": {1, takesAnArgument, capOp(false)},

		"--perms": {1, takesAnArgument, func(a *Args, _ string, v []string) error {
			if a.nextPerms != -1 {
				return errorf("--perms given twice for the same action")
			}
			perms, ok := parseOctal(v[0])
			if !ok {
				return errorf("--perms takes an octal argument <= 07777")
			}
			a.nextPerms = perms
			return nil
		}},
		"--size": {1, takesAnArgument, func(a *Args, _ string, v []string) error {
			if a.nextSize != 0 {
				return errorf("--size given twice for the same action")
			}
			size, err := parseSize(v[0])
			if err != nil {
				return err
			}
			a.nextSize = size
			return nil
		}},
	}
})

// newOp is an operation with no descriptor and no mode yet.
func newOp(k Kind, opt string) Op {
	return Op{Kind: k, Option: opt, FD: -1, Perms: -1}
}

func (a *Args) add(op Op) { a.Ops = append(a.Ops, op) }

func (a *Args) warnOnlyLast(opt string) {
	a.Warnings = append(a.Warnings, fmt.Sprintf("Only the last %s option will take effect", opt))
}

// takePerms returns the pending --perms, or def, and clears it.
func (a *Args) takePerms(def int) int {
	p := a.nextPerms
	a.nextPerms = -1
	if p < 0 {
		return def
	}
	return p
}

func (a *Args) takeSize() uint64 {
	s := a.nextSize
	a.nextSize = 0
	return s
}

func (a *Args) takeOverlaySrcs() []string {
	s := a.overlaySrcs
	a.overlaySrcs = nil
	return s
}

func dest(k Kind) func(*Args, string, []string) error {
	return func(a *Args, opt string, v []string) error {
		op := newOp(k, opt)
		op.Dest = v[0]
		a.add(op)
		return nil
	}
}

func bind(k Kind) func(*Args, string, []string) error {
	return func(a *Args, opt string, v []string) error {
		op := newOp(k, opt)
		op.Source, op.Dest, op.Try = v[0], v[1], strings.HasSuffix(opt, "-try")
		a.add(op)
		return nil
	}
}

func bindFD(k Kind) func(*Args, string, []string) error {
	return func(a *Args, opt string, v []string) error {
		fd, err := parseFD(v[0])
		if err != nil {
			return err
		}
		op := newOp(k, opt)
		op.Source, op.FD, op.Dest = fmt.Sprintf("/proc/self/fd/%d", fd), fd, v[1]
		a.add(op)
		return nil
	}
}

func data(k Kind, perms int) func(*Args, string, []string) error {
	return func(a *Args, opt string, v []string) error {
		fd, err := parseFD(v[0])
		if err != nil {
			return err
		}
		op := newOp(k, opt)
		op.FD, op.Dest, op.Perms = fd, v[1], a.takePerms(perms)
		a.add(op)
		return nil
	}
}

func lastFD(field func(*Args) *int) func(*Args, string, []string) error {
	return func(a *Args, opt string, v []string) error {
		p := field(a)
		if *p != -1 {
			a.warnOnlyLast(opt)
		}
		fd, err := parseFD(v[0])
		if err != nil {
			return err
		}
		*p = fd
		return nil
	}
}

func id(kind string, field func(*Args) *int) func(*Args, string, []string) error {
	return func(a *Args, opt string, v []string) error {
		p := field(a)
		if *p != -1 {
			a.warnOnlyLast(opt)
		}
		n, ok := parseCLong(v[0])
		if !ok || n < 0 {
			return errorf("Invalid %s: %s", kind, v[0])
		}
		*p = n
		return nil
	}
}

func capOp(add bool) func(*Args, string, []string) error {
	return func(a *Args, _ string, v []string) error {
		if !strings.EqualFold(v[0], "ALL") && !knownCap(v[0]) {
			return errorf("unknown cap: %s", v[0])
		}
		a.Caps = append(a.Caps, CapOp{Add: add, Name: v[0]})
		return nil
	}
}

// capNames are libcap's names of the capabilities, by number.
var capNames = []string{"chown", "dac_override", "dac_read_search", "fowner",
	"fsetid", "kill", "setgid", "setuid", "setpcap", "linux_immutable",
	"net_bind_service", "net_broadcast", "net_admin", "net_raw", "ipc_lock",
	"ipc_owner", "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace",
	"sys_pacct", "sys_admin", "sys_boot", "sys_nice", "sys_resource",
	"sys_time", "sys_tty_config", "mknod", "lease", "audit_write",
	"audit_control", "setfcap", "mac_override", "mac_admin", "syslog",
	"wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf",
	"checkpoint_restore"}

// knownCap is libcap's cap_from_name: a name, case ignored, or a number
// below 64.
func knownCap(s string) bool {
	_, ok := capNumber(s)
	return ok
}

// capNumber is the capability s names, as knownCap takes it.
func capNumber(s string) (int, bool) {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		n, ok := parseCBase0(s)
		return int(n), ok && n < 64
	}
	for i, c := range capNames {
		if strings.EqualFold(s, "cap_"+c) {
			return i, true
		}
	}
	return 0, false
}

// Mask is the capabilities the operation adds or drops: every one for
// ALL (bit N is capability N).
func (c CapOp) Mask() uint64 {
	if strings.EqualFold(c.Name, "ALL") {
		return ^uint64(0)
	}
	n, _ := capNumber(c.Name)
	return 1 << n
}

// RequestedCaps are the capabilities bubblewrap gives the command: the
// caller's effective ones (callerCaps) when the caller is root, none
// otherwise, changed by each --cap-add and --cap-drop in order.
func (a *Args) RequestedCaps(uid int, callerCaps uint64) uint64 {
	var caps uint64
	if uid == 0 {
		caps = callerCaps
	}
	for _, c := range a.Caps {
		if c.Add {
			caps |= c.Mask()
		} else {
			caps &^= c.Mask()
		}
	}
	return caps
}

// validEnvName is what setenv(3) and unsetenv(3) accept.
func validEnvName(name string) bool {
	return name != "" && !strings.Contains(name, "=")
}

// parseCLong is C's strtol(s, &end, 10) with the whole of s taken, as
// bubblewrap assigns it to an int: leading white space and a sign are
// allowed, an overflow saturates, and the result is cut to 32 bits.
func parseCLong(s string) (int, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if s == "" || t == "" || strings.TrimLeft(t, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		v = math.MaxInt64
		if neg {
			v = math.MinInt64
		}
	} else if neg {
		v = -v
	}
	return int(int32(v)), true
}

// parseFD is bubblewrap's check of a descriptor number.
func parseFD(s string) (int, error) {
	fd, ok := parseCLong(s)
	if !ok || fd < 0 {
		return 0, errorf("Invalid fd: %s", s)
	}
	return fd, nil
}

// parseOctal is strtoul(s, &end, 8) over the whole of s, at most 07777.
func parseOctal(s string) (int, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if s == "" || t == "" || strings.TrimLeft(t, "01234567") != "" {
		return 0, false
	}
	v, err := strconv.ParseUint(t, 8, 64)
	// strtoul negates a "-": anything but -0 is then above 07777.
	if err != nil || v > 0o7777 || (neg && v != 0) {
		return 0, false
	}
	return int(v), true
}

// maxTmpfsBytes is bubblewrap's MAX_TMPFS_BYTES on 64-bit hosts.
const maxTmpfsBytes = math.MaxUint64 >> 1

// parseSize is bubblewrap's check of --size: strtoull with base 0 (0x
// hex, 0 octal), starting with a digit, not zero, not out of range.
func parseSize(s string) (uint64, error) {
	bad := errorf("--size takes a non-zero number of bytes")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, bad
	}
	v, ok := parseCBase0(s)
	if !ok || v == 0 {
		return 0, bad
	}
	if v > maxTmpfsBytes {
		return 0, errorf("--size (for tmpfs) is limited to %d", uint64(maxTmpfsBytes))
	}
	return v, nil
}

// parseCBase0 is C's strtoull(s, &end, 0) over the whole of s, for s
// starting with a digit: "0x" hexadecimal, a leading "0" octal, else
// decimal; false for trailing text or an overflow.
func parseCBase0(s string) (uint64, bool) {
	base, digits := 10, s
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if strings.ContainsAny(digits, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, base, 64)
	return v, err == nil
}
