package plan

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

// The Landlock-only sandbox is two stages started without namespaces: the
// supervisor, which stays outside the payload's Landlock domain, and the
// child it starts, which restricts itself and executes the payload.

// LandlockOnlyInput is what planning a Landlock-only sandbox takes besides
// the Request.
type LandlockOnlyInput struct {
	// Rules are the effective rules: the caller's, with those of the
	// home and git's protection.
	Rules []Rule
	Cwd   string
	Env   []string // the payload's environment so far
	Facts Facts
	// Absent are the paths git's protection keeps absent, Links the
	// symlinks it goes through (their names are kept), Held the
	// directories it leaves by "..", which this mode cannot pin.
	Absent, Links, Held []string
	// TmpDir makes the sandbox's private temporary directory, which the
	// caller removes once the sandbox is gone, or if planning fails.
	TmpDir func() (string, error)
	// Shims are version managers' shims directories (ShimDirs): said to
	// stay read-only, since this mode has no mounts to give them a layer.
	Shims []string
}

// LandlockOnlyPlan is a Landlock-only sandbox as planned.
type LandlockOnlyPlan struct {
	Spec                       launch.Spec // Env, Dir, Landlock, Seccomp, Supervisor
	Tmp                        string      // the private temporary directory
	FS                         FilesystemReport
	Landlock                   LandlockReport
	Seccomp                    SeccompReport
	Compensations, NotEnforced []string
	// Warning, when not "", is what the caller says on its warnings
	// after those about overruled rules: the rules Landlock narrowed.
	Warning string
	// Net is the filtered network, served on the host's loopback; nil for
	// none. Its listeners are the caller's to close (Net.Cleanup), also
	// when planning fails.
	Net *Net
}

// LandlockOnly plans a sandbox from Landlock (and seccomp) alone: the host
// root readable, programs executable only from the system's directories
// and the rules' paths, the rules' paths with their access, a private
// temporary directory, no /dev but a few devices and its own terminal,
// /proc read-only.
// Holes (deny, read-only inside writable) are carved out of the grants
// around them, since nothing else enforces them here; what Landlock does
// not see is handed to the stage's supervisor (supervisorFor).
func LandlockOnly(r *Request, in LandlockOnlyInput, warn, logf func(string, ...any)) (*LandlockOnlyPlan, error) {
	lo := &LandlockOnlyPlan{}
	if err := lo.plan(r, in, warn, logf); err != nil {
		lo.Net.Cleanup()
		return nil, err
	}
	return lo, nil
}

// plan fills lo; the network it serves is in lo.Net as soon as it is,
// for LandlockOnly to close if a later step fails.
func (lo *LandlockOnlyPlan) plan(r *Request, in LandlockOnlyInput, warn, logf func(string, ...any)) error {
	if r.KeepChanges != "" {
		return &Error{Kind: KindIsolation, Setting: "keep-changes"}
	}
	for _, rl := range in.Rules {
		if err := landlockOnlyRule(rl, in.Rules, in.Cwd); err != nil {
			return err
		}
	}
	abi, err := landlockOnlyRefusals(r)
	if err != nil {
		return err
	}
	LogShimsReadOnly(in.Shims, in.Rules, logf)
	tmp, err := in.TmpDir()
	if err != nil {
		return err
	}
	// Where Landlock can check which unix socket is connected to (ABI 9),
	// it does; below, the supervisor does.
	rw, extraFS := RW, landlock.FS(0)
	if abi >= 9 {
		rw, extraFS = RW|landlock.ResolveUnix, landlock.ResolveUnix
	}
	lo.Tmp = tmp
	grants, writable := ruleGrants(baseGrants(tmp, rw, in.Facts.TTYSlave), in.Rules, tmp, rw, &lo.FS)
	// A path kept absent is a hole where nothing exists: the directories
	// on its way lose the rights to create, remove and rename entries (as
	// on the way to any hole), and the supervisor, which makes their
	// entries for the payload, keeps their names and never makes that
	// one. Nothing can then replace a directory on the way, nor create
	// the name. The hole itself gets no rule (there is no file to put it
	// on); its rights only keep the file rights of the directories above.
	//
	// A symlink git's protection goes through is held the same way: a
	// grant on it adds no rule (Landlock puts none on a symlink) and only
	// takes the rights to create, remove and rename entries from the
	// directories above it; the supervisor keeps its name. A directory
	// cannot be: a grant on it would take those rights from all below it.
	if len(in.Held) > 0 {
		return &Error{Err: errs.New("%s: a path git uses goes into %s and out again by \"..\": the payload could put a symlink there and lead host git elsewhere, and this mode cannot keep that directory in place (%s pins it)", errs.IsolationLandlock, in.Held[0], errs.IsolationFull)}
	}
	for _, p := range append(append([]string{}, in.Absent...), in.Links...) {
		grants = append(grants, landlock.Grant{Path: p, Access: rw &^ landlock.Bind, Dir: true})
	}
	// Without a network namespace, --net none is seccomp refusing every
	// socket but unix and netlink (and Landlock denying the ports where
	// the kernel can).
	if !r.Layers.HostNet && len(r.Layers.Connect)+len(r.Layers.Bind) > 0 {
		return &Error{Err: errs.New("port rules need %s", errs.NetHost)}
	}
	n, l, err := landlockOnlyLayers(r, grants, extraFS, warn)
	lo.Net = n
	if err != nil {
		return err
	}
	narrowed := landlock.Narrowed(grants, l.Landlock.Handled.FS)
	sup, facts, err := supervisorPlan(r, l, abi, narrowed, writable, n != nil)
	if err != nil {
		return err
	}
	sup.Protected = append(append(protected(in.Rules), in.Absent...), in.Links...)
	wd, err := WorkDir(r.Dir, "/", in.Rules, in.Cwd, logf)
	if err != nil {
		return err
	}
	lo.Landlock, lo.Seccomp = l.LandlockReport, l.SeccompReport
	facts.DeniedDirs, facts.Cgroup = deniedDirs(in.Rules), in.Facts.CgroupDir
	lo.Compensations, lo.NotEnforced = LandlockOnlyReport(facts)
	lo.Warning = NarrowedWarning(narrowed, facts.DeniedDirs, facts.Entries)
	env := environ.Set(in.Env, "TMPDIR", tmp)
	if n != nil {
		env = ProxyEnv(env, n.Proxy, r.CallerEnv)
		lo.NotEnforced = append(lo.NotEnforced, LandlockNetNotEnforced(n.Proxy, sup.Listen)...)
	}
	sup.Home, _ = os.UserHomeDir()
	lo.Spec = launch.Spec{Env: env, Dir: wd, Landlock: l.Landlock, Seccomp: l.Seccomp, Supervisor: sup}
	return nil
}

// deniedDirs are the directories the rules deny.
func deniedDirs(rules []Rule) []string {
	var out []string
	for _, rl := range rules {
		if rl.Access == mounts.Deny && rl.Dir {
			out = append(out, rl.Canon)
		}
	}
	return out
}

// ruleGrants adds to grants those of the rules (rw for the writable
// ones), and returns them with where the payload may write (tmp, its
// private temporary directory, first), listing the rules' paths in fs.
func ruleGrants(grants []landlock.Grant, rules []Rule, tmp string, rw landlock.FS, fs *FilesystemReport) ([]landlock.Grant, []supervise.Rule) {
	*fs = FilesystemReport{Root: "/", RW: []string{tmp}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}, Proc: "host", Sys: "host"}
	writable := []supervise.Rule{{Path: tmp, Writable: true}}
	for _, rl := range rules {
		access := map[mounts.Access]landlock.FS{mounts.ReadWrite: rw, mounts.ReadOnly: landlock.ReadExec}[rl.Access]
		id := Identity(rl.Info)
		grants = append(grants, landlock.Grant{Path: rl.Canon, Access: access, Dir: rl.Dir, ID: landlock.Identity{Dev: id.Dev, Ino: id.Ino}})
		writable = append(writable, supervise.Rule{Path: rl.Canon, Writable: rl.Access == mounts.ReadWrite})
		switch rl.Access {
		case mounts.ReadWrite:
			fs.RW = append(fs.RW, rl.Canon)
		case mounts.ReadOnly:
			fs.RO = append(fs.RO, rl.Canon)
		case mounts.Deny:
			fs.Deny = append(fs.Deny, rl.Canon)
		}
	}
	return grants, writable
}

// landlockOnlyLayers plans the network (nil for no filtered network) and
// the layers over grants: without a network namespace, the network's
// limits are Landlock's ports and seccomp's.
func landlockOnlyLayers(r *Request, grants []landlock.Grant, extraFS landlock.FS, warn func(string, ...any)) (*Net, *Layers, error) {
	n, err := PlanNetwork(&r.Net, true)
	if err != nil {
		return nil, nil, err
	}
	layers, limit := &r.Layers, NetAsPolicy
	switch {
	case n != nil:
		// TCP connects to the proxy alone; UDP is seccomp's to refuse
		// (seccomp.TCPOnly), on every ABI.
		layers, limit = proxyOnly(r.Layers, n.ProxyPort()), NetConnectOnly
	case !r.Layers.HostNet:
		limit = NetNothing
	}
	l, err := PlanLayers(layers, grants, LayerOptions{ExtraFS: extraFS, Limit: limit, Carve: true, Supervised: true}, warn)
	if err == nil && n != nil {
		err = AddTCPOnly(l, r.Layers.Seccomp == "off")
	}
	return n, l, err
}

// proxyOnly is l with TCP connects to the proxy's port alone (and, as for
// --net none, nothing bound but what l binds).
func proxyOnly(l LayerRequest, port uint16) *LayerRequest {
	l.Connect = []launch.PortRange{{Proto: "tcp", First: port, Last: port}}
	return &l
}

// landlockOnlyRule refuses a rule a sandbox without mounts cannot give.
func landlockOnlyRule(r Rule, rules []Rule, cwd string) error {
	switch {
	case r.Access != mounts.ReadOnly && r.Access != mounts.ReadWrite && r.Access != mounts.Deny:
		return &Error{Kind: KindIsolation, Rule: &r}
	case r.Mapped():
		return &Error{Kind: KindIsolation, Rule: &r}
	case r.Info != nil && r.Info.Mode()&os.ModeSocket != 0 && r.Access != mounts.Deny:
		// Without mounts, a socket a rule names is reached by its own
		// path, where the Landlock-only mode decides about sockets.
		return ruleError(r, errs.New("is a socket: a rule shows one only with namespaces (%s)", errs.IsolationFull))
	}
	return unpinnableLink(r, rules, cwd)
}

// landlockOnlyRefusals refuses what the Landlock-only mode cannot give, or
// cannot give on this host; it returns the kernel's Landlock ABI.
func landlockOnlyRefusals(r *Request) (int, error) {
	if r.TmpfsSize > 0 {
		return 0, &Error{Kind: KindIsolation, Setting: "tmpfs-size"}
	}
	if r.Layers.LandlockOff {
		return 0, &Error{Err: errs.New("%s with %s would leave nothing enforced", errs.IsolationLandlock, errs.LandlockOff)}
	}
	if r.Layers.Seccomp == "off" {
		return 0, &Error{Err: errs.New("%s needs seccomp for what Landlock does not check (host unix sockets, metadata changes, other processes' limits); seccomp is off", errs.IsolationLandlock)}
	}
	abi, _, err := landlock.ABI()
	if err != nil || abi < 1 {
		return 0, &Error{Err: errs.New("%s needs Landlock, which this kernel does not offer (%w)", errs.IsolationLandlock, err)}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) >= "2" {
		return 0, &Error{Err: errs.New("%s: kernel.yama.ptrace_scope=%s keeps nsrun's supervisor from reading the calls it checks for the payload; it needs 0 or 1",
			errs.IsolationLandlock, strings.TrimSpace(string(b)))}
	}
	return abi, nil
}

// baseGrants are what every Landlock-only sandbox is granted: the host
// root readable, its private tmp with rw, a few devices and tty (the
// payload's own pty, "" for none), and the system's programs.
func baseGrants(tmp string, rw landlock.FS, tty string) []landlock.Grant {
	dir := func(path string, access landlock.FS) landlock.Grant {
		return landlock.Grant{Path: path, Access: access, Dir: true, ID: launch.LstatID(path)}
	}
	// The host's /dev holds other programs' shared memory (/dev/shm) and
	// every session's terminal (/dev/pts): its names must not be listed,
	// and read_dir on / would reach them, so / gets none (its entries
	// do).
	devHole := dir("/dev", 0)
	devHole.Unlisted = true
	grants := []landlock.Grant{
		dir("/", landlock.ReadFile|landlock.ReadDir),
		devHole,
		dir("/proc", landlock.ReadFile|landlock.ReadDir),
		dir(tmp, rw),
	}
	for _, d := range mounts.DevicePaths() {
		grants = append(grants, landlock.Grant{Path: d, Access: Dev, ID: launch.LstatID(d)})
	}
	// /dev/pts holds every session's terminal: only the payload's own pty
	// is granted, and no /dev/ptmx to make others.
	if tty != "" {
		grants = append(grants, landlock.Grant{Path: tty, Access: Dev})
	}
	for _, d := range launch.ExecDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			grants = append(grants, dir(d, landlock.ReadExec))
		}
	}
	return grants
}

// supervisorPlan decides the supervisor of a sandbox with layers l, whose
// grants Landlock narrowed as narrowed, and what the report says of it;
// filtered says the network is nsrun's proxy.
func supervisorPlan(r *Request, l *Layers, abi int, narrowed []landlock.Narrow, writable []supervise.Rule, filtered bool) (*launch.SupervisorSpec, LandlockOnlyFacts, error) {
	getfd := PidfdGetfdAllowed()
	unixMode := PickUnixMode(l.Landlock.Handled.FS, r.AllowHostUnixSockets, getfd)
	// Giving the payload the descriptor an open returns takes 5.14
	// (SECCOMP_ADDFD_FLAG_SEND).
	k := SeccompHost().Kernel
	entries := entriesNeeded(narrowed, writable) && (k[0] > 5 || k[0] == 5 && k[1] >= 14)
	facts := LandlockOnlyFacts{Handled: l.Landlock.Handled, ABI: abi, NetNone: !r.Layers.HostNet, Unix: unixMode, Entries: entries}
	if l.BindRestricted && !getfd {
		// Docker's default profile allows pidfd_getfd only with
		// CAP_SYS_PTRACE; without it listen() cannot be checked.
		return nil, facts, &Error{Err: errs.New("%s: listen() checks need pidfd_getfd, which is refused here (a container's seccomp profile without CAP_SYS_PTRACE?)", errs.AllowBind)}
	}
	// listen() on a TCP socket never bound takes a port no bind() shows:
	// the supervisor checks it where binding is restricted, and with the
	// filtered network (which allows no port) where it can take the
	// payload's sockets; else the report says it is not enforced.
	listen := l.BindRestricted || filtered && getfd
	sup, err := supervisorFor(l.Landlock, writable, unixMode, entries, listen)
	if err != nil {
		return nil, facts, err
	}
	if sup.Listen {
		sup.AllowBind = append([]launch.PortRange{}, r.Layers.Bind...) // the proxy changes no bind rule
	}
	return sup, facts, nil
}

// unpinnableLink refuses a read-only or deny rule named through a symlink
// that lies in a writable rule's tree, for a sandbox that cannot pin it
// (no mounts): the payload could replace the link, and the host would
// later follow the payload's.
func unpinnableLink(r Rule, rules []Rule, cwd string) error {
	abs := paths.Abs(r.Path, cwd)
	if (r.Access != mounts.ReadOnly && r.Access != mounts.Deny) || abs == r.Canon {
		return nil
	}
	for _, l := range SymlinksAlong(abs) {
		if w, ok := Cover(rules, l.Path); ok && w.Access == mounts.ReadWrite {
			return ruleError(r, errs.New("%s is a symlink in the writable %s: the payload could replace it, and %s cannot pin it (%s does)", l.Path, w.Canon, errs.IsolationLandlock, errs.IsolationFull))
		}
	}
	return nil
}

// entriesNeeded reports whether a directory the policy makes writable lost
// the rights to create, remove or rename entries on the way to a hole: the
// supervisor then does those for the payload.
func entriesNeeded(narrowed []landlock.Narrow, writable []supervise.Rule) bool {
	pol := supervise.Policy{Rules: writable}
	for _, n := range narrowed {
		if n.Lost&landlock.Bind != 0 && pol.Writable(n.Dir) {
			return true
		}
	}
	return false
}

// protected are the read-only and denied rules inside writable ones.
func protected(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		if r.Access != mounts.ReadOnly && r.Access != mounts.Deny {
			continue
		}
		for _, w := range rules {
			if w.Access == mounts.ReadWrite && w.Canon != r.Canon && paths.Within(r.Canon, w.Canon) {
				out = append(out, r.Canon)
				break
			}
		}
	}
	return out
}

// PidfdGetfdAllowed reports whether this process may take another's
// descriptors (tried on itself): Docker's and Kubernetes' default seccomp
// profiles allow pidfd_getfd only with CAP_SYS_PTRACE.
func PidfdGetfdAllowed() bool {
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, pidfd, 0)
	if err == nil {
		unix.Close(fd)
	}
	return err == nil
}

// supervisorFor decides what the Landlock-only stage's supervisor gets:
// the filter that hands it calls, the ruleset of the threads that connect
// inet sockets for the payload (its port rules, so the kernel decides as it
// would for the payload), where writing is allowed, and whether it checks
// listen() (the one listener of the task tree is this filter's).
func supervisorFor(rs *landlock.Ruleset, writable []supervise.Rule, mode UnixMode, entries, listen bool) (*launch.SupervisorSpec, error) {
	o := seccomp.LandlockOnlyOptions{Entries: entries, Listen: listen}
	switch mode {
	case UnixChecked:
		o.Connect, o.Unix = true, seccomp.UnixNoDatagram
	case UnixPairsOnly:
		o.Unix = seccomp.UnixPairsOnly
	}
	prof := seccomp.LandlockOnly(o)
	compiled, err := seccomp.Compile(prof)
	if err != nil {
		return nil, &Error{Msg: "the Landlock-only filter: " + err.Error()}
	}
	return &launch.SupervisorSpec{
		Filter:   compiled.Program,
		Writable: writable,
		Workers:  landlock.Ruleset{Handled: landlock.Request{Net: rs.Handled.Net}, Ports: rs.Ports},
		Listen:   listen,
	}, nil
}
