package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/launch"
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
		for _, n := range git.notes {
			c.logf("git: %s", n)
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

// prepareFull plans a sandbox with namespaces (plan.Full) over the parts
// the root still plans (fullParts), and raises the plan into the report.
func (c *Cmd) prepareFull(p *Policy, user []canonRule, cwd string, env []string, x *extras) (*prepared, error) {
	root, rootInfo, err := p.fullRoot(cwd)
	if err != nil {
		return nil, err
	}
	env = payloadEnv(p, env, x.home, privateHome, "full")
	rules, overruled := effective(append(ownRules(p, root), user...))
	parts := &fullParts{c: c, p: p, rules: rules, report: networkReport(p)}
	fp, err := plan.Full(x.req, plan.FullInput{Root: root, RootInfo: rootInfo, Rules: lowerRules(rules), User: lowerRules(user),
		Cwd: cwd, Env: env, Facts: x.facts, Pins: x.pins, Links: x.links, Shims: c.shimDirs(), Parts: parts}, c.warnf, c.logf)
	if err != nil {
		return nil, raise(err)
	}
	prep := &prepared{spec: fp.Spec, net: parts.np, kept: fp.Kept, lock: fp.KeptLock}
	prep.report = Report{Version: 1, Backend: "linux", Namespaces: NamespaceReport(fp.Namespaces), Filesystem: FilesystemReport(fp.FS),
		Network: parts.report, Landlock: LandlockReport(fp.Landlock), Seccomp: SeccompReport(fp.Seccomp), NotEnforced: fp.NotEnforced}
	prep.report.Filesystem.Overruled = c.overruledReport(overruled)
	return prep, nil
}

// fullParts is what of a sandbox with namespaces the root still plans
// (plan.FullParts): the filtered network, np once planned, and the kept
// changes over the effective rules.
type fullParts struct {
	c      *Cmd
	p      *Policy
	rules  []canonRule
	report *NetworkReport
	np     *netPlan
}

func (f *fullParts) CheckNetwork() error { return f.p.checkNetwork() }

func (f *fullParts) NetFiles(root string) []mounts.File {
	if !f.p.servesNetwork() {
		return nil
	}
	return netFiles(root, f.p.Hostname)
}

func (f *fullParts) KeepChanges(root string, in *mounts.Input) (string, *os.File, error) {
	return f.c.keepChanges(f.p, root, f.rules, in)
}

func (f *fullParts) RecordMade(kept string, mp *mounts.Plan) error { return recordMade(kept, mp) }

func (f *fullParts) PlanNetwork() (bool, error) {
	np, err := f.c.planNetwork(f.p, false, f.report)
	f.np = np
	return np != nil, err
}

func (f *fullParts) NetEnv(env []string) []string {
	if f.np != nil && (f.p.filtersNetwork() || f.c.Env == nil) {
		// A refusing network's variables are advice, not the way out: an
		// environment the caller gave is left as it is.
		return proxyEnv(env, f.np.proxy, f.c.Env != nil)
	}
	return env
}

func (f *fullParts) LoopbackAddrs() []string { return f.np.loopbackAddrs() }

// prepareLandlockOnly plans a sandbox from Landlock (and seccomp) alone
// (plan.LandlockOnly), over the network the root still plans (llNet), and
// raises the plan into the report.
func (c *Cmd) prepareLandlockOnly(p *Policy, user []canonRule, cwd string, env []string, x *extras) (*prepared, error) {
	if err := p.landlockOnlyIdentity(); err != nil {
		return nil, err
	}
	user, overruled := effective(user)
	prep := &prepared{}
	net := &llNet{c: c, p: p, report: networkReport(p)}
	in := plan.LandlockOnlyInput{Rules: lowerRules(user), Cwd: cwd, Env: env, Facts: x.facts,
		Absent: x.absent, Links: x.links, Held: x.held, Net: net, Shims: c.shimDirs(),
		// The sandbox has no tmpfs of its own.
		TmpDir: func() (string, error) {
			t, err := sandbox.NewTmpDir()
			if err != nil {
				return "", err
			}
			prep.tmpDir = t
			return t.Path(), nil
		},
	}
	lo, err := plan.LandlockOnly(x.req, in, c.warnf, c.logf)
	prep.net = net.np
	if err != nil {
		prep.cleanup()
		return nil, raise(err)
	}
	prep.report = Report{Version: 1, Backend: "landlock", Filesystem: FilesystemReport(lo.FS), Network: net.report,
		Landlock: LandlockReport(lo.Landlock), Seccomp: SeccompReport(lo.Seccomp), Compensations: lo.Compensations, NotEnforced: lo.NotEnforced}
	prep.report.Filesystem.Overruled = c.overruledReport(overruled)
	if lo.Warning != "" {
		c.warnf("%s", lo.Warning)
	}
	home := filepath.Join(lo.Tmp, "home")
	if p.Home == HomePrivate {
		if err := os.Mkdir(home, 0o700); err != nil {
			prep.cleanup()
			return nil, fmt.Errorf("private home: %w", err)
		}
	}
	prep.spec = lo.Spec
	prep.spec.Env = payloadEnv(p, lo.Spec.Env, x.home, home, "landlock")
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

// llNet is a Landlock-only sandbox's filtered network as the root plans it
// (plan.LandlockOnlyNet): np once planned, nil for none.
type llNet struct {
	c      *Cmd
	p      *Policy
	report *NetworkReport
	np     *netPlan
}

func (n *llNet) Plan() (string, error) {
	np, err := n.c.planNetwork(n.p, true, n.report)
	if err != nil || np == nil {
		return "", err
	}
	n.np = np
	return np.proxy, nil
}

func (n *llNet) Layers() *plan.LayerRequest       { return layerRequest(n.np.landlockPolicy(n.p)) }
func (n *llNet) AddTCPOnly(l *plan.Layers) error  { return n.np.addTCPOnly(n.p, l) }
func (n *llNet) Env(env []string) []string        { return proxyEnv(env, n.np.proxy, n.c.Env != nil) }
func (n *llNet) NotEnforced(listen bool) []string { return landlockNetNotEnforced(n.np.proxy, listen) }

// pidfdGetfdAllowed reports whether this process may take another's
// descriptors (plan.PidfdGetfdAllowed), for the probe.
func pidfdGetfdAllowed() bool { return plan.PidfdGetfdAllowed() }
