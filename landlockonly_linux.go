package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
	"golang.org/x/sys/unix"
)

// The Landlock-only sandbox is two stages started without namespaces: the
// supervisor, which stays outside the payload's Landlock domain, and the
// child it starts, which restricts itself and executes the payload.

// prepareLandlockOnly builds a sandbox from Landlock (and seccomp) alone:
// the host root readable, programs executable only from the system's
// directories and the rules' paths, the rules' paths with their access, a
// private temporary directory, no /dev but a few devices and its own
// terminal, /proc read-only.
// Holes (deny, read-only inside writable) are carved out of the grants
// around them, since nothing else enforces them here; what Landlock does
// not see is handed to the stage's supervisor (supervisorSpec).
func (c *Cmd) prepareLandlockOnly(p *Policy, user []canonRule, cwd string, env []string, x *extras) (*prepared, error) {
	if err := p.landlockOnlyIdentity(); err != nil {
		return nil, err
	}
	if p.KeepChanges != "" {
		return nil, &IsolationError{Setting: "keep-changes"}
	}
	user, overruled := effective(user)
	for _, r := range user {
		switch {
		case r.Access != ReadOnly && r.Access != ReadWrite && r.Access != Deny:
			return nil, &IsolationError{Setting: r.Rule.Option()}
		case r.mapped():
			return nil, &IsolationError{Setting: r.Rule.Option()}
		case r.info != nil && r.info.Mode()&os.ModeSocket != 0 && r.Access != Deny:
			// Without mounts, a socket a rule names is reached by its own
			// path, where the Landlock-only mode decides about sockets.
			return nil, &RuleError{Rule: r.Rule, Err: errors.New("is a socket: a rule shows one only with namespaces (--isolation full)")}
		}
		if err := unpinnableLink(r, user, cwd); err != nil {
			return nil, err
		}
	}
	if p.TmpfsSize > 0 {
		return nil, &IsolationError{Setting: "tmpfs-size"}
	}
	plan.LogShimsReadOnly(c.shimDirs(), lowerRules(user), c.logf)
	if p.Landlock == LandlockOff {
		return nil, &SetupError{Code: ExitSetup, Msg: "--isolation landlock with --landlock off would leave nothing enforced"}
	}
	if p.Seccomp == "off" {
		return nil, &SetupError{Code: ExitSetup, Msg: "--isolation landlock needs seccomp for what Landlock does not check (host unix sockets, metadata changes, other processes' limits); seccomp is off"}
	}
	abi, _, err := landlock.ABI()
	if err != nil || abi < 1 {
		return nil, &SetupError{Code: ExitSetup, Msg: fmt.Sprintf("--isolation landlock needs Landlock, which this kernel does not offer (%v)", err)}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) >= "2" {
		return nil, &SetupError{Code: ExitSetup, Msg: "--isolation landlock: kernel.yama.ptrace_scope=" + strings.TrimSpace(string(b)) +
			" keeps nsrun's supervisor from reading the calls it checks for the payload; it needs 0 or 1"}
	}
	// The sandbox has no tmpfs of its own.
	tmpDir, err := sandbox.NewTmpDir()
	if err != nil {
		return nil, err
	}
	tmp := tmpDir.Path()
	prep := &prepared{tmpDir: tmpDir}
	fail := func(err error) (*prepared, error) {
		prep.cleanup()
		return nil, err
	}
	// Where Landlock can check which unix socket is connected to (ABI 9),
	// it does; below, the supervisor does.
	rw, extraFS := plan.RW, landlock.FS(0)
	if abi >= 9 {
		rw, extraFS = plan.RW|landlock.ResolveUnix, landlock.ResolveUnix
	}
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
		grants = append(grants, landlock.Grant{Path: d, Access: plan.Dev, ID: launch.LstatID(d)})
	}
	// /dev/pts holds every session's terminal: only the payload's own pty
	// is granted, and no /dev/ptmx to make others.
	if tty := x.facts.TTYSlave; tty != "" {
		grants = append(grants, landlock.Grant{Path: tty, Access: plan.Dev})
	}
	for _, d := range launch.ExecDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			grants = append(grants, dir(d, landlock.ReadExec))
		}
	}
	report := Report{
		Version: 1, Backend: "landlock",
		Filesystem: FilesystemReport{Root: "/", RW: []string{tmp}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}, Proc: "host", Sys: "host"},
	}
	writable := []supervise.Rule{{Path: tmp, Writable: true}}
	for _, r := range user {
		access := map[Access]landlock.FS{ReadWrite: rw, ReadOnly: landlock.ReadExec}[r.Access]
		id := plan.Identity(r.info)
		grants = append(grants, landlock.Grant{Path: r.Canon, Access: access, Dir: r.Dir, ID: landlock.Identity{Dev: id.Dev, Ino: id.Ino}})
		writable = append(writable, supervise.Rule{Path: r.Canon, Writable: r.Access == ReadWrite})
		switch r.Access {
		case ReadWrite:
			report.Filesystem.RW = append(report.Filesystem.RW, r.Canon)
		case ReadOnly:
			report.Filesystem.RO = append(report.Filesystem.RO, r.Canon)
		case Deny:
			report.Filesystem.Deny = append(report.Filesystem.Deny, r.Canon)
		}
	}
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
	if len(x.held) > 0 {
		return fail(&SetupError{Code: ExitSetup, Msg: fmt.Sprintf("--isolation landlock: a path git uses goes into %s and out again by \"..\": the payload could put a symlink there and lead host git elsewhere, and this mode cannot keep that directory in place (--isolation full pins it)", x.held[0])})
	}
	for _, p := range append(append([]string{}, x.absent...), x.links...) {
		grants = append(grants, landlock.Grant{Path: p, Access: rw &^ landlock.Bind, Dir: true})
	}
	// Without a network namespace, --net none is seccomp refusing every
	// socket but unix and netlink (and Landlock denying the ports where
	// the kernel can).
	if p.Net == NetNone && len(p.AllowConnect)+len(p.AllowBind) > 0 {
		return fail(&SetupError{Code: ExitSetup, Msg: "port rules need --net host"})
	}
	report.Network = networkReport(p)
	if prep.net, err = c.planNetwork(p, true, report.Network); err != nil {
		return fail(err)
	}
	layersPolicy, limit := p, plan.NetAsPolicy
	switch {
	case prep.net != nil:
		// TCP connects to the proxy alone; UDP is seccomp's to refuse
		// (tcpOnly), on every ABI.
		layersPolicy, limit = prep.net.landlockPolicy(p), plan.NetConnectOnly
	case p.Net == NetNone:
		limit = plan.NetNothing
	}
	l, err := c.planLayers(layersPolicy, grants, plan.LayerOptions{ExtraFS: extraFS, Limit: limit, Carve: true, Supervised: true})
	if err == nil && prep.net != nil {
		err = prep.net.addTCPOnly(p, l)
	}
	if err != nil {
		return fail(err)
	}
	getfd := pidfdGetfdAllowed()
	unixMode := plan.PickUnixMode(l.Landlock.Handled.FS, p.AllowHostUnixSockets, getfd)
	narrowed := landlock.Narrowed(grants, l.Landlock.Handled.FS)
	// Giving the payload the descriptor an open returns takes 5.14
	// (SECCOMP_ADDFD_FLAG_SEND).
	k := plan.SeccompHost().Kernel
	entries := entriesNeeded(narrowed, writable) && (k[0] > 5 || k[0] == 5 && k[1] >= 14)
	if l.BindRestricted && !getfd {
		// Docker's default profile allows pidfd_getfd only with
		// CAP_SYS_PTRACE; without it listen() cannot be checked.
		return fail(&SetupError{Code: ExitSetup, Msg: "--allow-bind: listen() checks need pidfd_getfd, which is refused here (a container's seccomp profile without CAP_SYS_PTRACE?)"})
	}
	// listen() on a TCP socket never bound takes a port no bind() shows:
	// the supervisor checks it where binding is restricted, and with the
	// filtered network (which allows no port) where it can take the
	// payload's sockets; else the report says it is not enforced.
	listen := l.BindRestricted || prep.net != nil && getfd
	sup, err := supervisorFor(l.Landlock, writable, unixMode, entries, listen)
	if err != nil {
		return fail(err)
	}
	if sup.Listen {
		sup.AllowBind = launchPorts(layersPolicy.AllowBind)
	}
	sup.Protected = append(append(protected(user), x.absent...), x.links...)
	wd, err := c.workDir("/", user, cwd)
	if err != nil {
		return fail(err)
	}
	report.Landlock, report.Seccomp = LandlockReport(l.LandlockReport), SeccompReport(l.SeccompReport)
	report.Filesystem.Overruled = c.overruledReport(overruled)
	facts := plan.LandlockOnlyFacts{Handled: l.Landlock.Handled, ABI: abi, NetNone: p.Net == NetNone, Unix: unixMode, Entries: entries}
	for _, r := range user {
		if r.Access == Deny && r.Dir {
			facts.DeniedDirs = append(facts.DeniedDirs, r.Canon)
		}
	}
	facts.Cgroup = x.facts.CgroupDir
	report.Compensations, report.NotEnforced = plan.LandlockOnlyReport(facts)
	if w := plan.NarrowedWarning(narrowed, facts.DeniedDirs, entries); w != "" {
		c.warnf("%s", w)
	}
	env = withTmpdir(env, tmp)
	if prep.net != nil {
		env = proxyEnv(env, prep.net.proxy, c.Env != nil)
		report.NotEnforced = append(report.NotEnforced, landlockNetNotEnforced(prep.net.proxy, listen)...)
	}
	prep.report = report
	home := filepath.Join(tmp, "home")
	if p.Home == HomePrivate {
		if err := os.Mkdir(home, 0o700); err != nil {
			return fail(fmt.Errorf("private home: %w", err))
		}
	}
	env = payloadEnv(p, env, x.home, home, "landlock")
	sup.Home, _ = os.UserHomeDir()
	prep.spec = launch.Spec{Env: env, Dir: wd, Landlock: l.Landlock, Seccomp: l.Seccomp, Supervisor: sup}
	return prep, nil
}

// landlockOnlyIdentity refuses the settings of the sandbox's own root,
// host name and ids, which need namespaces.
func (p *Policy) landlockOnlyIdentity() error {
	switch {
	case p.Root != "":
		return &IsolationError{Setting: "root"}
	case p.Hostname != "":
		return &IsolationError{Setting: "hostname"}
	case p.UID != nil:
		return &IsolationError{Setting: "uid"}
	case p.GID != nil:
		return &IsolationError{Setting: "gid"}
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
func protected(rules []canonRule) []string {
	var out []string
	for _, r := range rules {
		if r.Access != ReadOnly && r.Access != Deny {
			continue
		}
		for _, w := range rules {
			if w.Access == ReadWrite && w.Canon != r.Canon && mounts.Within(r.Canon, w.Canon) {
				out = append(out, r.Canon)
				break
			}
		}
	}
	return out
}

// pidfdGetfdAllowed reports whether this process may take another's
// descriptors (tried on itself): Docker's and Kubernetes' default seccomp
// profiles allow pidfd_getfd only with CAP_SYS_PTRACE.
func pidfdGetfdAllowed() bool {
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
func supervisorFor(rs *landlock.Ruleset, writable []supervise.Rule, mode plan.UnixMode, entries, listen bool) (*launch.SupervisorSpec, error) {
	o := seccomp.LandlockOnlyOptions{Entries: entries, Listen: listen}
	switch mode {
	case plan.UnixChecked:
		o.Connect, o.Unix = true, seccomp.UnixNoDatagram
	case plan.UnixPairsOnly:
		o.Unix = seccomp.UnixPairsOnly
	}
	prof := seccomp.LandlockOnly(o)
	compiled, err := seccomp.Compile(prof)
	if err != nil {
		return nil, &SetupError{Code: ExitSetup, Msg: "the Landlock-only filter: " + err.Error()}
	}
	return &launch.SupervisorSpec{
		Filter:   compiled.Program,
		Writable: writable,
		Workers:  landlock.Ruleset{Handled: landlock.Request{Net: rs.Handled.Net}, Ports: rs.Ports},
		Listen:   listen,
	}, nil
}

// withTmpdir points TMPDIR at dir.
func withTmpdir(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir)
}
