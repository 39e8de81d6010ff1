package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/seccomp"
)

// prepared is a Cmd turned into what the kernel needs.
type prepared struct {
	spec   launch.Spec
	report Report
	tmpDir *sandbox.TmpDir // created for a Landlock-only sandbox; removed after it
	kept   string          // --keep-changes: tidied once the sandbox is gone
	lock   *os.File        // on kept, held until then
	net    *netPlan        // a filtered network, or nil
	absent []absent.Target
	git    *gitProtection // looked at again after the run
	// filters are the seccomp programs the sandbox loads untraced, oldest
	// first: under --trace-denials the tracer refuses what they refuse.
	filters []seccomp.Program
}

// extras is what both kinds of sandbox get from the common preparation.
type extras struct {
	home *homeSetup
	pins []string // directories the mount plan must hold in place
	// absent are the paths kept absent (Policy.ProtectGit): the
	// Landlock-only mode keeps them and the directories on their way.
	absent []string
	// links are symlinks git's protection goes through: with namespaces
	// each is pinned, in the Landlock-only mode its name is kept.
	links []string
	// held are directories git's protection goes through and leaves by
	// "..": pinned with namespaces; the Landlock-only mode refuses them.
	held  []string
	facts sandboxFacts
}

// idMap is who the sandbox's user is inside, and who it is on the host.
type idMap struct {
	uid, gid         int
	hostUID, hostGID int
}

// policyIDs is the ids of p's sandbox: the caller's unless p sets others.
func policyIDs(p *Policy) (idMap, error) {
	ids := idMap{hostUID: os.Getuid(), hostGID: os.Getgid()}
	ids.uid, ids.gid = ids.hostUID, ids.hostGID
	if p.UID != nil {
		ids.uid = *p.UID
	}
	if p.GID != nil {
		ids.gid = *p.GID
	}
	if err := ns.CheckID(int64(ids.uid)); err != nil {
		return ids, &IDError{Kind: "uid", Err: err}
	}
	if err := ns.CheckID(int64(ids.gid)); err != nil {
		return ids, &IDError{Kind: "gid", Err: err}
	}
	return ids, nil
}

// cleanup removes what preparing created.
func (p *prepared) cleanup() {
	_ = p.tmpDir.Remove()
	if p.lock != nil {
		p.lock.Close()
	}
	p.net.cleanup()
}

// reservedPaths are built by nsrun itself in a sandbox with namespaces:
// rules cannot change them.
var reservedPaths = []string{"/dev", "/proc", "/sys"}

// payloadEnv is the environment after Policy.Home (private: privateDir)
// and with NSRUN_SANDBOX saying which kind of sandbox the payload is in.
func payloadEnv(p *Policy, env []string, hs *homeSetup, privateDir, kind string) []string {
	switch p.Home {
	case HomePrivate:
		env = homeEnv(env, privateDir, hs.identity, p.KeepEnv)
	case HomePersistent:
		env = homeEnv(env, hs.dir, hs.identity, p.KeepEnv)
	}
	return setEnv(env, "NSRUN_SANDBOX", kind)
}

// checkInput refuses what is wrong with the Cmd and its policy as given:
// the command, the values, the rules (canonical, without conflicts, off
// the paths nsrun builds) and the environment patterns. It reads the host
// (rules name its files) but changes nothing there, and warns about rules
// that name a file through a symlink or one with other names.
func (c *Cmd) checkInput(p *Policy) ([]canonRule, string, error) {
	if len(c.Args) == 0 || c.Args[0] == "" {
		return nil, "", &SetupError{Code: ExitSetup, Msg: "no command given"}
	}
	if err := p.checkValues(); err != nil {
		return nil, "", err
	}
	user, cwd, err := canonicalRules(p.Rules, p.Root != "" && p.Isolation == IsolationFull)
	if err != nil {
		return nil, "", err
	}
	if err := checkConflicts(user); err != nil {
		return nil, "", err
	}
	for _, cr := range user {
		r := cr.Rule
		for _, res := range reservedPaths {
			isDev := (r.Access == Device || r.Access == BlockDevice) && res == "/dev"
			if p.Isolation == IsolationFull && mounts.Within(cr.Canon, res) && !isDev {
				hint := ""
				if res == "/sys" {
					hint = " (--sys host shows the host's, read-only)"
				}
				return nil, "", &RuleError{Rule: r, Err: fmt.Errorf("%s is built by nsrun itself; rules cannot change it%s", res, hint)}
			}
		}
		if cr.info == nil {
			continue // a directory or symlink of the sandbox's own
		}
		if r.From == "" {
			if abs := paths.Abs(r.Path, cwd); abs != cr.Canon {
				if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
					c.warnf("%s %s is a symlink to %s; the sandbox gets %s", r.Access, r.Path, cr.Canon, cr.Canon)
				}
			}
		}
		if n := plan.LinkCount(cr.info); n > 1 && cr.info.Mode().IsRegular() && (r.Access == ReadOnly || r.Access == Deny) {
			// A rule protects a path; another name of the same file is
			// another path, which a writable rule may cover.
			c.warnf("%s %s: the file has %d hard links; through another name in a writable path it can still be read and written", r.Access, r.Path, n)
		}
	}
	for _, pat := range append(append([]string{}, p.UnsetEnv...), p.KeepEnv...) {
		if err := CheckEnvPattern(pat); err != nil {
			return nil, "", &SetupError{Code: ExitSetup, Op: fmt.Sprintf("environment pattern %q", pat), Err: err}
		}
	}
	return user, cwd, nil
}

// inputError names what is wrong with input that cannot start (an id that
// cannot be mapped, no command) without touching the host: what prepare
// would refuse first in the policy (its rules, values and settings) comes
// before the bad id, as the options are read.
func (c *Cmd) inputError(idErr error) error {
	p := c.policy()
	user, cwd, err := c.checkInput(p)
	if err != nil {
		return err
	}
	if p.Home == HomePersistent {
		if _, err := persistentHomeDir(p.HomeDir, Homes(), cwd); err != nil {
			return &SetupError{Code: ExitSetup, Msg: err.Error()}
		}
	}
	if p.ProtectGit {
		if err := gitShownElsewhere(user); err != nil {
			return err
		}
	}
	if p.Isolation == IsolationLandlock {
		if err := p.landlockOnlyIdentity(); err != nil {
			return err
		}
	} else {
		if _, _, err := p.fullRoot(cwd); err != nil {
			return err
		}
		if err := p.checkNetwork(); err != nil {
			return err
		}
	}
	return idErr
}

// gitShownElsewhere refuses a writable directory shown at another place
// than its own under git's protection: the protection finds repositories
// and keeps their names where the host has them; shown elsewhere, they
// would be left unprotected.
func gitShownElsewhere(rules []canonRule) error {
	for _, cr := range rules {
		if cr.mapped() && cr.Dir && writable(cr.Access) {
			return &RuleError{Rule: cr.Rule, Err: errors.New("git protection (the agent preset) covers writable directories shown at their own place only: use --rw " + cr.host)}
		}
	}
	return nil
}

// sandboxFacts is what planning needs to know of the sandbox started
// before it is planned (see forkAndPlan), handed to it rather than read
// from the running sandbox.
type sandboxFacts struct {
	Console   bool   // the payload has a pty of its own
	TTYSlave  string // Landlock only: that pty's slave, the one terminal its rules grant
	CgroupDir string // the sandbox's cgroup v2 directory, "" without one
}

// prepare checks the paths and decides all the sandbox needs.
func (c *Cmd) prepare(f sandboxFacts) (*prepared, error) {
	p := c.policy()
	user, cwd, err := c.checkInput(p)
	if err != nil {
		return nil, err
	}
	x := &extras{facts: f}
	if x.home, err = c.setupHome(p, cwd); err != nil {
		return nil, err
	}
	user = append(user, x.home.rules...)
	var git *gitProtection
	var keepAbsent []absent.Target
	if p.ProtectGit {
		if err := gitShownElsewhere(user); err != nil {
			return nil, err
		}
		git = protectGit(append(ownRules(p, "/"), user...))
		for _, w := range git.warnings {
			c.warnf("git: %s", w)
		}
		user = append(user, git.rules...)
		x.links, x.held = git.links, git.held
		x.pins = append(x.pins, git.held...)
		keepAbsent = absentTargets(git.absent, append(ownRules(p, "/"), user...))
		seen := map[string]bool{}
		for _, a := range git.absent {
			x.absent = append(x.absent, a.Path())
			if !seen[a.Dir] {
				seen[a.Dir] = true
				x.pins = append(x.pins, a.Dir)
			}
		}
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env, removed := filterEnv(env, p.UnsetEnv, p.KeepEnv)
	if guessed := secretNames(removed); len(guessed) > 0 {
		c.warnf("environment: removed %s (names of secrets; --keep-env NAME lets one through)", strings.Join(guessed, ", "))
	}
	var prep *prepared
	if p.Isolation == IsolationLandlock {
		prep, err = c.prepareLandlockOnly(p, user, cwd, env, x)
	} else {
		prep, err = c.prepareFull(p, user, cwd, env, x)
	}
	if err != nil {
		return nil, err
	}
	prep.spec.Env = withPWD(prep.spec.Env, prep.spec.Dir)
	if p.TraceDenials {
		if prep.filters, err = tracedFilters(&prep.spec); err != nil {
			prep.cleanup()
			return nil, err
		}
	}
	// PWD is replaced, never removed: the report does not list it.
	prep.report.Environment = EnvironmentReport{Removed: slices.DeleteFunc(removed, func(k string) bool { return k == "PWD" })}
	if h, ok := getEnv(prep.spec.Env, "HOME"); ok && p.Home != HomeInherit {
		prep.report.Environment.Home = h
	}
	prep.git = git
	if len(keepAbsent) > 0 {
		prep.absent = keepAbsent
		prep.report.Absent = &AbsentReport{Watched: []string{}, Appeared: []AppearedReport{}}
		for _, a := range keepAbsent {
			prep.report.Absent.Watched = append(prep.report.Absent.Watched, a.Path())
		}
	}
	prep.spec.Args, prep.spec.Verbose = c.Args, c.Log != nil
	ids, _ := policyIDs(p) // checked already
	c.describeRun(&prep.report, prep.spec.Dir, ids.uid, ids.gid)
	rlimits := withDefaultRlimits(p.Rlimits)
	for _, r := range rlimits {
		prep.spec.Rlimits = append(prep.spec.Rlimits, launch.Rlimit(r))
	}
	prep.report.Limits = limitsReport(p, rlimits)
	prep.report.Enforcement = enforcement(&prep.report, p.Net == NetHost)
	if p.Strict {
		if err := strictError(&prep.report, p.Isolation); err != nil {
			prep.cleanup()
			return nil, err
		}
	}
	return prep, nil
}

// fullRoot refuses what full isolation cannot give, and returns the root
// the sandbox is built over: "/" or p.Root, canonical, with its file info.
func (p *Policy) fullRoot(cwd string) (string, os.FileInfo, error) {
	if p.AllowHostUnixSockets {
		return "", nil, &SetupError{Code: ExitSetup, Msg: "--allow-host-unix-sockets is for --isolation landlock: with namespaces, the host's unix sockets are out of reach through the private /run and --deny"}
	}
	if p.Root == "" {
		info, err := os.Stat("/")
		if err != nil {
			return "", nil, fmt.Errorf("stat /: %w", err)
		}
		return "/", info, nil
	}
	root, info, err := paths.Canonical(p.Root, cwd)
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("%s is %s, not a directory", root, paths.FileKind(info.Mode()))
	}
	if err != nil {
		return "", nil, &RuleError{Rule: Rule{Path: p.Root}, Err: err}
	}
	return root, info, nil
}

func (c *Cmd) prepareFull(p *Policy, user []canonRule, cwd string, env []string, x *extras) (*prepared, error) {
	root, rootInfo, err := p.fullRoot(cwd)
	if err != nil {
		return nil, err
	}
	env = payloadEnv(p, env, x.home, privateHome, "full")
	rules, overruled := effective(append(ownRules(p, root), user...))

	in := mounts.Input{Root: root, RootID: plan.Identity(rootInfo), ProtectProc: os.Getuid() == 0, TmpfsSize: p.TmpfsSize,
		HostProc: p.Proc == ProcHost, HostSys: p.Sys == SysHost || p.Net == NetHost, Console: x.facts.Console, Identify: plan.DirIdentity, Pins: x.pins}
	in.Lookup = plan.LookupHost
	if err := p.checkNetwork(); err != nil {
		return nil, err
	}
	if p.servesNetwork() {
		in.Files = netFiles(root, p.Hostname)
	}
	for _, r := range rules {
		if err := c.addRule(&in, r, root); err != nil {
			return nil, err
		}
	}
	kept, lock, err := c.keepChanges(p, root, rules, &in)
	if err != nil {
		return nil, err
	}
	plan.AddShimLayers(&in, c.shimDirs(), lowerRules(rules), c.logf) // after keepChanges: never kept
	built := false
	defer func() {
		if !built && lock != nil {
			lock.Close() // nothing will use what it keeps
		}
	}()
	if err := c.accountFiles(p, root, rules, env, &in); err != nil {
		return nil, err
	}
	for _, l := range x.links {
		// Bound onto itself: the payload can neither remove, rename nor
		// replace it, and host git follows the same link later.
		fi, err := os.Lstat(l)
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			err = errors.New("no longer a symlink")
		}
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Op: "hold the symlink " + l + " git's protection goes through", Err: err}
		}
		target, err := os.Readlink(l)
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Op: "hold " + l, Err: err}
		}
		in.LinksToPin = append(in.LinksToPin, mounts.Link{Path: l, Target: target, ID: plan.Identity(fi)})
	}
	if p.Root == "" {
		for _, r := range user {
			// A path with no symlink on the way is its own canonical form:
			// nothing to walk again. A rule that shows another path, or
			// nothing of the host's, has no links of its own inside.
			if r.From != "" || r.info == nil {
				continue
			}
			if abs := paths.Abs(r.Path, cwd); abs != r.Canon {
				links := plan.SymlinksAlong(abs)
				in.Links = append(in.Links, links...)
				if r.Access == ReadOnly || r.Access == Deny {
					// The host resolves the path through these links later:
					// in writable places they are pinned.
					in.LinksToPin = append(in.LinksToPin, links...)
				}
			}
		}
	}
	mp, err := mounts.Make(in)
	if err != nil {
		var pe *mounts.PlanError
		if errors.As(err, &pe) {
			for _, r := range rules {
				if r.Canon == pe.Path && !r.internal {
					return nil, &RuleError{Rule: r.Rule, Err: pe.Err}
				}
			}
		}
		return nil, &SetupError{Code: ExitSetup, Op: "plan mounts", Err: err}
	}
	for _, f := range mp.LeftOut {
		c.warnf("nsrun's own %s is not placed: the tree there has a symlink or a directory, or a writable host directory would hold it; the sandbox sees that tree's", f)
	}
	if kept != "" {
		if err := recordMade(kept, mp); err != nil {
			return nil, &SetupError{Code: ExitSetup, Err: err}
		}
	}
	// Lets the tests run the pre-5.12 way of setting mount attributes on
	// kernels that no longer need it.
	mp.Remount = os.Getenv("NSRUN_FORCE_REMOUNT") == "1"

	// Start checked the ids before forking; checked again here so that a
	// bad id is reported after a bad path, as the options are read.
	if _, err := policyIDs(p); err != nil {
		return nil, err
	}
	prep := &prepared{}
	dir, err := c.workDir(root, rules, cwd)
	if err != nil {
		return nil, err
	}
	l, err := c.planLayers(p, plan.FullGrants(mp), plan.LayerOptions{Limit: plan.NetAsPolicy})
	if err != nil {
		return nil, err
	}
	if err := checkHostProc(p, l.LandlockReport); err != nil {
		return nil, err
	}
	// Last, as it listens on the host for --publish.
	netReport := networkReport(p)
	if prep.net, err = c.planNetwork(p, false, netReport); err != nil {
		return nil, err
	}
	if prep.net != nil && (p.filtersNetwork() || c.Env == nil) {
		// A refusing network's variables are advice, not the way out: an
		// environment the caller gave is left as it is.
		env = proxyEnv(env, prep.net.proxy, c.Env != nil)
	}
	prep.spec = launch.Spec{
		Plan:     mp,
		Env:      c.fixTmpdir(env, rules),
		Dir:      dir,
		Hostname: p.Hostname,
		Loopback: p.Net != NetHost,
		Landlock: l.Landlock,
		Seccomp:  l.Seccomp,
		Net:      prep.net != nil,
	}
	if prep.net != nil {
		prep.spec.LoopbackAddrs = prep.net.loopbackAddrs()
	}
	prep.report = baseReport(mp, p.Net == NetHost)
	prep.report.Filesystem.Changes, prep.kept, prep.lock = kept, kept, lock
	built = true
	for _, r := range rules {
		if r.info != nil && r.info.Mode()&os.ModeSocket != 0 && r.Access != Deny {
			prep.report.Filesystem.Sockets = append(prep.report.Filesystem.Sockets, r.Canon)
		}
	}
	prep.report.Network = netReport
	prep.report.Landlock, prep.report.Seccomp = LandlockReport(l.LandlockReport), SeccompReport(l.SeccompReport)
	prep.report.Filesystem.Overruled = c.overruledReport(overruled)
	if p.Proc == ProcHost {
		prep.report.NotEnforced = append(prep.report.NotEnforced, plan.HostProcNotEnforced)
	}
	return prep, nil
}

func baseReport(mp *mounts.Plan, hostNet bool) Report {
	r := Report{
		Version:    1,
		Backend:    "linux",
		Namespaces: NamespaceReport{User: true, Mount: true, PID: true, IPC: true, UTS: true, Net: !hostNet, Cgroup: true},
		Filesystem: FilesystemReport{Root: mp.Root.Source, RW: []string{}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}, Proc: "private", Sys: "private"},
	}
	if !mp.Root.ReadOnly {
		r.Filesystem.RW = append(r.Filesystem.RW, "/")
	}
	r.Filesystem.RO = append(r.Filesystem.RO, mp.Unchanged...)
	r.Filesystem.Created = mp.Created
	if mp.Root.Kind == mounts.OpOverlay {
		r.Filesystem.Overlay = append(r.Filesystem.Overlay, "/")
	}
	for _, op := range mp.Ops {
		if op.Kind == mounts.OpBind && !op.Pin && op.Source != op.Path {
			if r.Filesystem.From == nil {
				r.Filesystem.From = map[string]string{}
			}
			r.Filesystem.From[op.Path] = op.Source
		}
		switch {
		case op.Pin:
			r.Filesystem.Pinned = append(r.Filesystem.Pinned, op.Path)
		case op.Kind == mounts.OpBind && op.ReadOnly, op.Kind == mounts.OpPinLink:
			r.Filesystem.RO = append(r.Filesystem.RO, op.Path)
		case op.Kind == mounts.OpBind:
			r.Filesystem.RW = append(r.Filesystem.RW, op.Path)
		case op.Kind == mounts.OpEmptyFile, op.Kind == mounts.OpTmpfs && op.ReadOnly:
			r.Filesystem.Deny = append(r.Filesystem.Deny, op.Path)
		case op.Kind == mounts.OpTmpfs:
			r.Filesystem.Tmpfs = append(r.Filesystem.Tmpfs, op.Path)
		case op.Kind == mounts.OpHostProc:
			r.Filesystem.Proc = "host"
		case op.Kind == mounts.OpHostSys:
			r.Filesystem.Sys = "host"
		case op.Kind == mounts.OpOverlay:
			r.Filesystem.Overlay = append(r.Filesystem.Overlay, op.Path)
		case op.Kind == mounts.OpFile:
			r.Filesystem.Files = append(r.Filesystem.Files, op.Path)
		case op.Kind == mounts.OpDev:
			for _, d := range op.Devices {
				r.Filesystem.Devices = append(r.Filesystem.Devices, path.Join(op.Path, d.Path))
			}
		}
	}
	return r
}

// overruledReport lists the rules that did not take effect as written,
// and warns about each one a caller set.
func (c *Cmd) overruledReport(overruled []Overruled) []string {
	var out []string
	for _, o := range overruled {
		if o.Rule.Source == SourceInternal {
			continue // nsrun's own defaults give way by design
		}
		out = append(out, o.String())
		c.warnf("%s", o)
	}
	return out
}
