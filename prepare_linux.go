package nsrun

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/mounts"
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
	facts plan.Facts
	req   *plan.Request
}

// cleanup removes what preparing created.
func (p *prepared) cleanup() {
	_ = p.tmpDir.Remove()
	if p.lock != nil {
		p.lock.Close()
	}
	p.net.cleanup()
}

// payloadEnv is the environment after Policy.Home (private: privateDir)
// and with NSRUN_SANDBOX saying which kind of sandbox the payload is in.
func payloadEnv(p *Policy, env []string, hs *homeSetup, privateDir, kind string) []string {
	kept := func(name string) bool { return matchAny(p.KeepEnv, name) }
	switch p.Home {
	case HomePrivate:
		env = plan.HomeEnv(env, privateDir, hs.identity, kept)
	case HomePersistent:
		env = plan.HomeEnv(env, hs.dir, hs.identity, kept)
	}
	return setEnv(env, "NSRUN_SANDBOX", kind)
}

// prepare checks the paths and decides all the sandbox needs.
func (c *Cmd) prepare(f plan.Facts) (*prepared, error) {
	p := c.policy()
	user, cwd, err := c.checkInput(p)
	if err != nil {
		return nil, err
	}
	ids, _ := policyIDs(p) // checked by start
	x := &extras{facts: f, req: c.request(p, ids)}
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
	prep.spec.Args, prep.spec.Verbose, prep.spec.Rlimits = x.req.Args, x.req.Verbose, x.req.Rlimits
	c.describeRun(&prep.report, prep.spec.Dir, ids.uid, ids.gid)
	prep.report.Limits = limitsReport(p, x.req.Rlimits)
	prep.report.Enforcement = enforcement(&prep.report, p.Net == NetHost)
	if p.Strict {
		if err := strictError(&prep.report, p.Isolation); err != nil {
			prep.cleanup()
			return nil, err
		}
	}
	return prep, nil
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
	lowered := lowerRules(rules)
	for _, r := range lowered {
		if err := c.addRule(&in, r, root); err != nil {
			return nil, err
		}
	}
	kept, lock, err := c.keepChanges(p, root, rules, &in)
	if err != nil {
		return nil, err
	}
	built := false
	defer func() {
		if !built && lock != nil {
			lock.Close() // nothing will use what it keeps
		}
	}()
	if err := c.accountFiles(x.req, root, lowered, env, &in); err != nil {
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
	dir, err := c.workDir(root, lowered, cwd)
	if err != nil {
		return nil, err
	}
	l, err := c.planLayers(&x.req.Layers, plan.FullGrants(mp), plan.LayerOptions{Limit: plan.NetAsPolicy})
	if err != nil {
		return nil, err
	}
	if err := checkHostProc(x.req, l.LandlockReport); err != nil {
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
		Env:      c.fixTmpdir(env, lowered),
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
	ns, fs := plan.FullReport(mp, p.Net == NetHost)
	prep.report = Report{Version: 1, Backend: "linux", Namespaces: NamespaceReport(ns), Filesystem: FilesystemReport(fs)}
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
