package nsrun

import (
	"errors"
	"os"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/seccomp"
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

// planLayers plans the Landlock and seccomp layers of p's sandbox over
// grants.
func (c *Cmd) planLayers(p *Policy, grants []landlock.Grant, o plan.LayerOptions) (*plan.Layers, error) {
	l, err := plan.PlanLayers(layerRequest(p), grants, o, c.warnf)
	return l, raise(err)
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
		r := pe.Rule
		return &RuleError{Rule: Rule{Path: r.Path, Access: Access(r.Access), Source: Source(r.Source), From: r.From}, Err: pe.Err}
	}
	return &SetupError{Code: ExitSetup, Op: pe.Op, Msg: pe.Msg, Err: pe.Err}
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

// tracedFilters makes spec's seccomp programs those of a traced sandbox
// and returns them as they were (plan.TracedFilters).
func tracedFilters(spec *launch.Spec) ([]seccomp.Program, error) {
	untraced, err := plan.TracedFilters(spec)
	return untraced, raise(err)
}

// traceDenials makes the judge of --trace-denials, which attributes each
// refused call to the rule or layer that refused it, and returns what the
// sandbox's tracer tells every refused call it sees: the judge, then the
// log of the denials.
func (c *Cmd) traceDenials(p *Policy, prep *prepared) (func(ptrace.Event), error) {
	eff, err := p.Effect()
	if err != nil {
		return nil, err
	}
	direct := p.Isolation == IsolationLandlock
	j := newJudge(p, eff.Rules, direct)
	if direct && prep.tmpDir != nil {
		j.Writable = []string{prep.tmpDir.Path()}
	}
	s := c.sys
	s.denials, s.judge = newDenialLog(), j
	return func(ev ptrace.Event) {
		if pd, ok := j.Judge(ev); ok {
			d := Denial(pd)
			d.Pid, d.Argv0 = ev.Process()
			if d.Pid == 0 {
				d.Pid = ev.Pid
			}
			s.denials.add(d)
		}
	}, nil
}

// newJudge is the judge of --trace-denials for a sandbox of p built from
// the effective rules: Resolve over them is what nsrun policy explain
// answers.
func newJudge(p *Policy, rules []Rule, landlockOnly bool) *plan.Judge {
	j := &plan.Judge{Root: "host root", LandlockOnly: landlockOnly, HostNet: p.Net == NetHost, Filtered: p.filtersNetwork()}
	if p.Root != "" {
		j.Root = "--root " + p.Root
	}
	j.Resolve = func(path string) (mounts.Access, string, bool, bool) {
		access, by, ok := Resolve(rules, path)
		if !ok {
			return 0, "", false, false
		}
		return mounts.Access(access), ruleLabel(by), by.Source == SourceMandatory, true
	}
	return j
}

// ruleLabel names a rule as the command line gives it.
func ruleLabel(r Rule) string {
	if r.Source == SourceInternal {
		return "nsrun's " + r.Access.String() + " " + r.Path
	}
	s := "--" + r.Option() + " "
	if r.From != "" {
		s += r.From + " "
	}
	s += r.Path
	if r.Source == SourceMandatory {
		s += " (mandatory)"
	}
	return s
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

// accountFiles adds to in the sandbox's /etc/passwd and /etc/group where
// they lack the payload's ids (plan.AccountFiles).
func (c *Cmd) accountFiles(p *Policy, root string, rules []canonRule, env []string, in *mounts.Input) error {
	ids, err := policyIDs(p)
	if err != nil {
		return err
	}
	user, _ := getEnv(env, "USER")
	home, _ := getEnv(env, "HOME")
	always := p.UID != nil || p.GID != nil || p.Root != ""
	in.Files = append(in.Files, plan.AccountFiles(plan.IDs{UID: ids.uid, GID: ids.gid, HostUID: ids.hostUID, HostGID: ids.hostGID},
		always, root, lowerRules(rules), user, home)...)
	return nil
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

// workDir is the payload's working directory (plan.WorkDir).
func (c *Cmd) workDir(root string, rules []canonRule, cwd string) (string, error) {
	dir, err := plan.WorkDir(c.Dir, root, lowerRules(rules), cwd, c.logf)
	return dir, raise(err)
}

// fixTmpdir points TMPDIR at /tmp where the payload cannot write it
// (plan.FixTmpdir).
func (c *Cmd) fixTmpdir(env []string, rules []canonRule) []string {
	return plan.FixTmpdir(env, lowerRules(rules), c.warnf)
}

// addRule adds an effective rule to the mount plan's input
// (plan.AddRule).
func (c *Cmd) addRule(in *mounts.Input, r canonRule, root string) error {
	return raise(plan.AddRule(in, lowerRules([]canonRule{r})[0], root))
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

// checkHostProc refuses ProcHost where Landlock cannot keep the payload
// out of other processes' /proc entries (plan.CheckHostProc).
func checkHostProc(p *Policy, l plan.LandlockReport) error {
	if p.Proc != ProcHost {
		return nil
	}
	return raise(plan.CheckHostProc(p.Landlock == LandlockOff, l))
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
