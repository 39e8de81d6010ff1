package nsrun

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/gitguard"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/mounts"
)

// prepared is a Cmd planned (plan.Make), with what the root keeps of it.
type prepared struct {
	*plan.Result
	report  Report
	tmpDir  *sandbox.TmpDir // made for a Landlock-only sandbox; removed after it
	git     *gitProtection  // looked at again after the run
	removed []string        // the variables UnsetEnv removed
}

// cleanup removes what planning made.
func (p *prepared) cleanup() {
	_ = p.tmpDir.Remove()
	p.Result.Cleanup()
}

// request lowers c and its policy p, whose ids are ids, into what the
// planner reads of them; cwd is the caller's working directory,
// canonical. It reads nothing of the host but the caller's homes.
func (c *Cmd) request(p *Policy, ids idMap, cwd string) (*plan.Request, error) {
	r := &plan.Request{
		Args: c.Args, Dir: c.Dir, Cwd: cwd, Verbose: c.Log != nil, CallerEnv: c.Env != nil,
		Root: p.Root, LandlockOnly: p.Isolation == IsolationLandlock, Layers: layerRequest(p),
		IDs:    plan.IDs{UID: ids.uid, GID: ids.gid, HostUID: ids.hostUID, HostGID: ids.hostGID},
		SetIDs: p.UID != nil || p.GID != nil, Hostname: p.Hostname,
		HostProc: p.Proc == ProcHost, HostSys: p.Sys == SysHost, TmpfsSize: p.TmpfsSize,
		AllowHostUnixSockets: p.AllowHostUnixSockets, Strict: p.Strict, ProtectGit: p.ProtectGit,
		TraceDenials: p.TraceDenials, KeepChanges: p.KeepChanges,
		Home: plan.HomeMode(p.Home), HomeDir: p.HomeDir, UnsetEnv: p.UnsetEnv, KeepEnv: p.KeepEnv,
		PrivateHome: privateHome, Net: netRequest(p), Limits: cgroupLimits(p),
	}
	for _, rl := range withDefaultRlimits(p.Rlimits) {
		r.Rlimits = append(r.Rlimits, plan.Rlimit(rl))
	}
	if p.Home != HomeInherit {
		homes := Homes()
		r.HomeMade.Cwd = cwd
		if p.Home == HomePersistent {
			dir, err := persistentHomeDir(p.HomeDir, homes, cwd)
			if err != nil {
				return nil, &SetupError{Code: ExitSetup, Msg: err.Error()}
			}
			r.HomeMade.Persistent = dir
		}
		if len(homes) > 0 {
			r.HomeMade.CallerHome, r.HomeMade.StateDir = homes[0], StateDir(homes[0])
		}
	}
	return r, nil
}

// lower gives the planner what of p holds once the home h is made (nil
// for none) and the sandbox's root is known: user (p's rules, canonical)
// with the home's and git's added and made effective, git's protection
// (kept in prep, to look at again after the run), the environment.
func (c *Cmd) lower(p *Policy, user []canonRule, h *plan.Home, root string, prep *prepared) (*plan.Lowered, error) {
	x := &plan.Lowered{}
	if h != nil {
		var rules []canonRule
		x.HomeDir, x.Identity, rules = c.homeRules(h)
		user = append(user, rules...)
	}
	if p.ProtectGit {
		if err := plan.CheckGitShown(lowerRules(user)); err != nil {
			return nil, raise(err)
		}
		git := protectGit(append(ownRules(p, "/"), user...))
		for _, w := range git.warnings {
			c.warnf("git: %s", w)
		}
		for _, n := range git.notes {
			c.logf("git: %s", n)
		}
		user = append(user, git.rules...)
		x.Links, x.Held = git.links, git.held
		x.Pins = append(x.Pins, git.held...)
		x.Targets = absentTargets(git.absent, append(ownRules(p, "/"), user...))
		seen := map[string]bool{}
		for _, a := range git.absent {
			x.Absent = append(x.Absent, a.Path())
			if !seen[a.Dir] {
				seen[a.Dir] = true
				x.Pins = append(x.Pins, a.Dir)
			}
		}
		prep.git = git
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	x.Env, prep.removed = filterEnv(env, p.UnsetEnv, p.KeepEnv)
	if guessed := secretNames(prep.removed); len(guessed) > 0 {
		c.warnf("environment: removed %s (names of secrets; --keep-env NAME lets one through)", strings.Join(guessed, ", "))
	}
	var overruled []Overruled
	if p.Isolation == IsolationLandlock {
		if err := p.landlockOnlyIdentity(); err != nil {
			return nil, err
		}
		user, overruled = effective(user)
		x.Rules = lowerRules(user)
	} else {
		var rules []canonRule
		rules, overruled = effective(append(ownRules(p, root), user...))
		x.Rules, x.User = lowerRules(rules), lowerRules(user)
	}
	for _, o := range overruled {
		if o.Rule.Source != SourceInternal { // nsrun's own defaults give way by design
			x.Overruled = append(x.Overruled, o.String())
		}
	}
	return x, nil
}

// homeRules are the rules that show the home h made: the persistent
// directory and the git identity file, with their paths.
func (c *Cmd) homeRules(h *plan.Home) (dir, identity string, rules []canonRule) {
	if h.Dir != "" {
		dir = h.Dir
		rules = append(rules, canonRule{Rule: Rule{Path: h.Dir, Access: ReadWrite, Source: SourceInternal}, Canon: h.Dir, Dir: true, info: h.DirInfo, internal: true})
	}
	err := h.IdentityErr
	if err == nil && h.Identity != "" {
		// Shown where it is even when that is hidden otherwise (under
		// the private /tmp).
		var cr canonRule
		if cr, err = canonicalRule(Rule{Path: h.Identity, Access: ReadOnly, Source: SourceInternal}, "/"); err == nil {
			cr.internal = true
			rules = append(rules, cr)
			identity = cr.Canon
		}
	}
	if err != nil {
		c.warnf("git identity: %v; git inside has none of yours", err)
	}
	return dir, identity, rules
}

// secretNames are the names SecretEnv matches (and SecretEnvKept does
// not) among names, in their order: those whose removal nsrun guessed.
func secretNames(names []string) []string {
	var out []string
	for _, n := range names {
		if environ.MatchAny(SecretEnv, n) && !environ.MatchAny(SecretEnvKept, n) {
			out = append(out, n)
		}
	}
	return out
}

// layerRequest lowers what of p the layers are planned from.
func layerRequest(p *Policy) plan.LayerRequest {
	return plan.LayerRequest{LandlockOff: p.Landlock == LandlockOff, AllowUserns: p.AllowUserns,
		HostNet: p.Net == NetHost, Seccomp: p.Seccomp, Connect: launchPorts(p.AllowConnect), Bind: launchPorts(p.AllowBind)}
}

// netRequest lowers what of p its network is checked and planned from.
func netRequest(p *Policy) plan.NetRequest {
	r := plan.NetRequest{Filtered: p.filtersNetwork(), Refused: p.refusesNetwork(),
		HostNet: p.Net == NetHost, Landlock: p.Isolation == IsolationLandlock,
		AllowHosts: p.AllowHosts, AllowPrivateHosts: p.AllowPrivateHosts,
		HostAllowed: p.HostAllowed, Dial: p.Dial, Resolve: p.Resolve,
		HostPorts: launchPorts(p.HostPorts), AllowConnect: launchPorts(p.AllowConnect)}
	for _, h := range p.AddHosts {
		name, addr, err := ParseAddHost(h)
		r.AddHosts = append(r.AddHosts, plan.AddHost{Given: h, Name: name, Addr: addr, Err: err})
	}
	for _, pb := range p.Publish {
		r.Publish = append(r.Publish, plan.Publish(pb))
	}
	return r
}

// servesNetwork reports whether nsrun serves a proxy and DNS inside p's
// sandbox: a filtered network, or a refusing one.
func (p *Policy) servesNetwork() bool {
	return p.filtersNetwork() || p.refusesNetwork()
}

// launchPorts are ranges as the stages name them.
func launchPorts(ranges []PortRange) []plan.PortRange {
	var out []plan.PortRange
	for _, r := range ranges {
		out = append(out, plan.PortRange(r))
	}
	return out
}

// cgroupLimits are p's cgroup limits.
func cgroupLimits(p *Policy) cgroup.Limits {
	return cgroup.Limits{Memory: p.Memory, Pids: p.Pids, CPU: p.CPU}
}

// lowerRules lowers canonical rules for the planner.
func lowerRules(rules []canonRule) []plan.Rule {
	out := make([]plan.Rule, len(rules))
	for i, r := range rules {
		out[i] = plan.Rule{Path: r.Path, From: r.From, Access: mounts.Access(r.Access), Canon: r.Canon, Host: r.host,
			Dir: r.Dir, Info: r.info, Internal: r.internal, Source: int(r.Source)}
	}
	return out
}

// absentTargets are the names to keep absent, each with the directory it
// is watched from (plan.AbsentTargets over the effective rules).
func absentTargets(names []gitguard.Absent, rules []canonRule) []plan.AbsentTarget {
	eff, _ := effective(rules)
	return plan.AbsentTargets(names, lowerRules(eff))
}

// hasOverlay reports whether a policy asks for an overlay, whose init
// needs ns.OverlayCaps.
func hasOverlay(p *Policy) bool {
	for _, r := range p.Rules {
		if r.Access == Overlay {
			return true
		}
	}
	return false
}

// mountAccess is a rule's access as the mount plan names it: the two
// enumerations are kept in the same order (TestAccessAgreesWithMounts).
func mountAccess(a Access) mounts.Access { return mounts.Access(a) }

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
	if err := sandbox.CheckID(int64(ids.uid)); err != nil {
		return ids, &IDError{Kind: "uid", Err: err}
	}
	if err := sandbox.CheckID(int64(ids.gid)); err != nil {
		return ids, &IDError{Kind: "gid", Err: err}
	}
	return ids, nil
}

// checkInput refuses what is wrong with the Cmd and its policy as given:
// the command, the values, the rules (canonical, without conflicts, off
// the paths nsrun builds: plan.CheckRule) and the environment patterns.
// It reads the host (rules name its files) but changes nothing there, and
// warns about rules that name a file through a symlink or one with other
// names.
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
	for _, r := range lowerRules(user) {
		if err := plan.CheckRule(r, cwd, p.Isolation == IsolationFull, c.warnf); err != nil {
			return nil, "", raise(err)
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
// cannot be mapped, no command) without touching the host: c lowered and
// checked (checkInput, then plan.CheckInput), so that what planning would
// refuse first in the policy (its rules, values and settings) comes before
// the bad id, as the options are read.
func (c *Cmd) inputError(idErr error) error {
	p := c.policy()
	user, cwd, err := c.checkInput(p)
	if err != nil {
		return err
	}
	r, err := c.request(p, idMap{}, cwd)
	if err != nil {
		return err
	}
	if err := plan.CheckInput(r, lowerRules(user)); err != nil {
		return raise(err)
	}
	if p.Isolation == IsolationLandlock {
		if err := p.landlockOnlyIdentity(); err != nil {
			return err
		}
	}
	return idErr
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

// raise turns a planning failure into the public error it stands for.
func raise(err error) error {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Kind {
	case plan.KindSeccomp:
		return &SeccompError{Path: pe.Path, Err: pe.Err}
	case plan.KindDir:
		return &DirError{Dir: pe.Path, Err: pe.Err}
	case plan.KindNet:
		return &NetError{Option: pe.Setting, Value: pe.Value, Err: pe.Err}
	case plan.KindRule:
		return &RuleError{Rule: raiseRule(pe.Rule), Err: pe.Err}
	case plan.KindIsolation:
		if pe.Rule != nil {
			return &IsolationError{Setting: raiseRule(pe.Rule).Option()}
		}
		return &IsolationError{Setting: pe.Setting}
	}
	return &SetupError{Code: ExitSetup, Op: pe.Op, Msg: pe.Msg, Err: pe.Err}
}

// raiseRule is the policy's rule a lowered one stands for.
func raiseRule(r *plan.Rule) Rule {
	return Rule{Path: r.Path, Access: Access(r.Access), Source: Source(r.Source), From: r.From}
}

// withDefaultRlimits adds core=0 unless the caller set core: a crashing
// payload must not write a core file of its memory where it can.
func withDefaultRlimits(rs []Rlimit) []Rlimit {
	for _, r := range rs {
		if r.Name == "core" {
			return rs
		}
	}
	return append(append([]Rlimit(nil), rs...), Rlimit{Name: "core"})
}
