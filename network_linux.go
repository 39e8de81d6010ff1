package nsrun

import (
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/netproxy"
)

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

func networkCounts(cs []netproxy.Count) []NetworkCount {
	out := make([]NetworkCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, NetworkCount(c))
	}
	return out
}

// servesNetwork reports whether nsrun serves a proxy and DNS inside p's
// sandbox: a filtered network, or a refusing one.
func (p *Policy) servesNetwork() bool {
	return p.filtersNetwork() || p.refusesNetwork()
}
