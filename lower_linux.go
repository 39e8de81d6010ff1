package nsrun

import (
	"errors"
	"fmt"
	"os"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ns"
)

// layerRequest lowers what of p the layers are planned from.
func layerRequest(p *Policy) *plan.LayerRequest {
	r := &plan.LayerRequest{LandlockOff: p.Landlock == LandlockOff, AllowUserns: p.AllowUserns,
		HostNet: p.Net == NetHost, Seccomp: p.Seccomp}
	for _, pr := range p.AllowConnect {
		r.Connect = append(r.Connect, launch.PortRange(pr))
	}
	for _, pr := range p.AllowBind {
		r.Bind = append(r.Bind, launch.PortRange(pr))
	}
	return r
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

// netPlan is a sandbox's served network as planned (plan.Net): the
// server's configuration, and the proxy's address as the payload
// reaches it.
type netPlan struct {
	cfg   netproxy.Config
	proxy string
}

// netRequest lowers what of p its network is checked and planned from.
func netRequest(p *Policy) *plan.NetRequest {
	r := &plan.NetRequest{Filtered: p.filtersNetwork(), Refused: p.refusesNetwork(),
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

// checkNetwork refuses network settings that cannot be honoured as
// written, naming the option (plan.CheckNetwork).
func (p *Policy) checkNetwork() error {
	return raise(plan.CheckNetwork(netRequest(p)))
}

// planNetwork decides the served network of p, or returns nil when p
// neither filters nor refuses it (plan.PlanNetwork), and says so in
// report.
func (c *Cmd) planNetwork(p *Policy, landlockOnly bool, report *NetworkReport) (*netPlan, error) {
	r := netRequest(p)
	r.Log, r.Warnings, r.Warn = c.Log, c.Warnings, c.warnf
	n, err := plan.PlanNetwork(r, landlockOnly)
	if err != nil || n == nil {
		return nil, raise(err)
	}
	nr := n.Report
	if nr.Mode != "" {
		report.Mode, report.Allowed, report.AllowPrivateHosts = nr.Mode, nr.Allowed, nr.AllowPrivateHosts
	}
	if nr.Proxy != "" {
		report.Proxy = nr.Proxy
	}
	if nr.DNS != "" {
		report.DNS = nr.DNS
	}
	report.HostPorts, report.Publish = append(report.HostPorts, nr.HostPorts...), append(report.Publish, nr.Publish...)
	return &netPlan{cfg: n.Config, proxy: n.Proxy}, nil
}

func (np *netPlan) net() *plan.Net { return &plan.Net{Config: np.cfg, Proxy: np.proxy} }

// cleanup frees what planning took: the listeners on the host.
func (np *netPlan) cleanup() {
	if np != nil {
		np.net().Cleanup()
	}
}

// loopbackAddrs are the addresses the init gives lo, as text.
func (np *netPlan) loopbackAddrs() []string { return np.net().LoopbackAddrs() }

// landlockPolicy is p for the Landlock layers of a Landlock-only sandbox
// whose network is the proxy: TCP connects to the proxy's port alone (and,
// as for --net none, nothing bound).
func (np *netPlan) landlockPolicy(p *Policy) *Policy {
	with := *p
	port := np.net().ProxyPort()
	with.AllowConnect = []PortRange{{Proto: "tcp", First: port, Last: port}}
	return &with
}

// addTCPOnly adds the seccomp.TCPOnly filter to a Landlock-only sandbox's
// layers (plan.AddTCPOnly).
func (np *netPlan) addTCPOnly(p *Policy, l *plan.Layers) error {
	return raise(plan.AddTCPOnly(l, p.Seccomp == "off"))
}

var (
	proxyEnv               = plan.ProxyEnv
	netFiles               = plan.NetFiles
	landlockNetNotEnforced = plan.LandlockNetNotEnforced
)

// servesNetwork reports whether nsrun serves a proxy and DNS inside p's
// sandbox: a filtered network, or a refusing one.
func (p *Policy) servesNetwork() bool {
	return p.filtersNetwork() || p.refusesNetwork()
}

// lowerRules lowers canonical rules for the planner: once per launch,
// for every planner that reads them.
func lowerRules(rules []canonRule) []plan.Rule {
	out := make([]plan.Rule, len(rules))
	for i, r := range rules {
		out[i] = plan.Rule{Path: r.Path, From: r.From, Access: mounts.Access(r.Access), Canon: r.Canon, Host: r.host,
			Dir: r.Dir, Info: r.info, Internal: r.internal, Source: int(r.Source)}
	}
	return out
}

// keepChanges gives each overlay of the plan its kept layer under
// p.KeepChanges (plan.KeepChanges).
func (c *Cmd) keepChanges(p *Policy, root string, rules []canonRule, in *mounts.Input) (string, *os.File, error) {
	kept, lock, err := plan.KeepChanges(p.KeepChanges, root, lowerRules(rules), in)
	return kept, lock, raise(err)
}

// recordMade tells the kept directory which entries of its upper layers
// are the plan's mount points (plan.RecordMade).
var recordMade = plan.RecordMade

// absentTargets are the names to keep absent, each with the directory it
// is watched from (plan.AbsentTargets over the effective rules).
func absentTargets(names []gitguard.Absent, rules []canonRule) []absent.Target {
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

// reservedPaths are built by nsrun itself in a sandbox with namespaces:
// rules cannot change them.
var reservedPaths = []string{"/dev", "/proc", "/sys"}

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

// homeSetup is what a Policy's Home needs before planning: the persistent
// directory (made and checked) with its rule, and the git identity file.
type homeSetup struct {
	dir      string      // the persistent HOME, "" for none
	rules    []canonRule // the rules that show it and the identity file
	identity string      // a git configuration file with the caller's identity, or ""
}

// setupHome makes the persistent home directory if the policy has one and
// writes the caller's git identity where the payload's git will read it
// (plan.MakeHome), with the rules that show them.
func (c *Cmd) setupHome(p *Policy, cwd string) (*homeSetup, error) {
	hs := &homeSetup{}
	if p.Home == HomeInherit {
		return hs, nil
	}
	homes := Homes()
	r := plan.HomeRequest{Cwd: cwd}
	if p.Home == HomePersistent {
		dir, err := persistentHomeDir(p.HomeDir, homes, cwd)
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Msg: err.Error()}
		}
		r.Persistent = dir
	}
	if len(homes) > 0 {
		r.CallerHome, r.StateDir = homes[0], StateDir(homes[0])
	}
	h, err := plan.MakeHome(r)
	if err != nil {
		return nil, raise(err)
	}
	if h.Dir != "" {
		hs.dir = h.Dir
		hs.rules = append(hs.rules, canonRule{Rule: Rule{Path: h.Dir, Access: ReadWrite, Source: SourceInternal}, Canon: h.Dir, Dir: true, info: h.DirInfo, internal: true})
	}
	err = h.IdentityErr
	if err == nil && h.Identity != "" {
		// Shown where it is even when that is hidden otherwise (under
		// the private /tmp).
		var cr canonRule
		if cr, err = canonicalRule(Rule{Path: h.Identity, Access: ReadOnly, Source: SourceInternal}, "/"); err == nil {
			cr.internal = true
			hs.rules = append(hs.rules, cr)
			hs.identity = cr.Canon
		}
	}
	if err != nil {
		c.warnf("git identity: %v; git inside has none of yours", err)
	}
	return hs, nil
}

// request lowers c and its policy p, whose ids are ids, into what the
// planner reads of them. It reads nothing of the host.
func (c *Cmd) request(p *Policy, ids idMap) *plan.Request {
	r := &plan.Request{
		Args: c.Args, Dir: c.Dir, Verbose: c.Log != nil, CallerEnv: c.Env != nil,
		Root: p.Root, LandlockOnly: p.Isolation == IsolationLandlock, Layers: *layerRequest(p),
		IDs:    plan.IDs{UID: ids.uid, GID: ids.gid, HostUID: ids.hostUID, HostGID: ids.hostGID},
		SetIDs: p.UID != nil || p.GID != nil, Hostname: p.Hostname,
		HostProc: p.Proc == ProcHost, HostSys: p.Sys == SysHost, TmpfsSize: p.TmpfsSize,
		AllowHostUnixSockets: p.AllowHostUnixSockets, Strict: p.Strict, ProtectGit: p.ProtectGit,
		TraceDenials: p.TraceDenials, KeepChanges: p.KeepChanges,
		Home: plan.HomeMode(p.Home), HomeDir: p.HomeDir, UnsetEnv: p.UnsetEnv, KeepEnv: p.KeepEnv,
	}
	for _, rl := range withDefaultRlimits(p.Rlimits) {
		r.Rlimits = append(r.Rlimits, launch.Rlimit(rl))
	}
	return r
}
