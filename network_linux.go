package nsrun

import (
	"errors"
	"fmt"
	"github.com/nsrun/nsrun/internal/plan"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/seccomp"
)

// netPlan is a sandbox's filtered network as planned: the server's
// configuration, and what the payload gets to use it.
type netPlan struct {
	cfg   netproxy.Config
	proxy string // host:port of the proxy as the payload reaches it
}

// planNetwork decides the filtered network of p, or returns nil when p
// does not filter it. landlockOnly serves the proxy on the host's
// loopback (there is no network namespace to serve it in).
func (c *Cmd) planNetwork(p *Policy, landlockOnly bool, report *NetworkReport) (*netPlan, error) {
	if err := p.checkNetwork(); err != nil {
		return nil, err
	}
	if p.refusesNetwork() && !landlockOnly {
		return c.planRefusal(report), nil
	}
	if !p.filtersNetwork() {
		return nil, nil
	}
	pol, err := netproxy.ParsePolicy(p.AllowHosts, p.AllowPrivateHosts)
	if err != nil {
		return nil, &NetError{Option: "allow-host", Err: err}
	}
	np := &netPlan{cfg: netproxy.Config{Policy: pol, Allow: p.HostAllowed, Resolve: p.Resolve, Dial: p.Dial}}
	if len(p.AddHosts) > 0 {
		np.cfg.Hosts = map[string][]netip.Addr{}
		for _, h := range p.AddHosts {
			name, addr, _ := ParseAddHost(h) // checkNetwork checked them
			np.cfg.Hosts[name] = append(np.cfg.Hosts[name], addr)
		}
	}
	for _, r := range p.HostPorts {
		for port := int(r.First); port <= int(r.Last); port++ {
			np.cfg.HostPorts = append(np.cfg.HostPorts, uint16(port))
		}
		report.HostPorts = append(report.HostPorts, portRangeString(r))
	}
	for _, pb := range p.Publish {
		// Listening now makes a port in use an error before anything runs.
		ln, err := net.Listen("tcp", pb.Host.String())
		if err != nil {
			np.cleanup()
			return nil, &NetError{Option: "publish", Value: publishString(pb), Err: err}
		}
		np.cfg.Publish = append(np.cfg.Publish, netproxy.Publish{Host: ln, Port: pb.Port})
		report.Publish = append(report.Publish, publishString(pb))
	}
	c.netLogs(&np.cfg)
	np.proxy = netproxy.ProxyAddr.String()
	if len(p.AllowConnect) > 0 && !landlockOnly && !portIn(p.AllowConnect, netproxy.ProxyAddr.Port()) {
		c.warnf("--allow-connect leaves out port %d, nsrun's proxy: only programs that connect straight to the allowed names reach them", netproxy.ProxyAddr.Port())
	}
	if landlockOnly {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			np.cleanup()
			return nil, &SetupError{Code: ExitSetup, Op: "the proxy on the host's loopback", Err: err}
		}
		np.cfg.Proxy, np.proxy = ln, ln.Addr().String()
	} else {
		report.DNS = netproxy.DNSAddr.String()
	}
	report.Mode, report.Allowed, report.AllowPrivateHosts, report.Proxy = "filtered", pol.Strings(), p.AllowPrivateHosts, np.proxy
	return np, nil
}

// noNetwork is the reason the refusing server of Policy.RefuseNetwork
// gives.
const noNetwork = "the sandbox has no network (--net none)"

// planRefusal is the server of Policy.RefuseNetwork: the proxy and DNS
// inside, refusing every host; the report's mode stays none.
func (c *Cmd) planRefusal(report *NetworkReport) *netPlan {
	np := &netPlan{cfg: netproxy.Config{RefuseAll: noNetwork}, proxy: netproxy.ProxyAddr.String()}
	c.netLogs(&np.cfg)
	report.Proxy, report.DNS = np.proxy, netproxy.DNSAddr.String()
	return np
}

// netLogs sends the server's refusals to the Cmd's Log (every first one of
// a host and port), and those a user may not expect to its Warnings
// (once per host).
func (c *Cmd) netLogs(cfg *netproxy.Config) {
	var mu sync.Mutex
	if c.Log != nil {
		cfg.Log = func(line string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(c.Log, "nsrun: %s\n", line)
		}
	}
	if c.Warnings != nil {
		cfg.Notice = func(r netproxy.Refusal) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(c.Warnings, "nsrun: warning: network: %s\n", refusalLine(r))
		}
	}
}

// refusalLine says why a host was refused and which option would let it.
func refusalLine(r netproxy.Refusal) string {
	target := r.Host
	if r.Port != 0 {
		target = net.JoinHostPort(r.Host, fmt.Sprint(r.Port))
	}
	if !r.Addr.IsValid() {
		// The network is off (no other refusal is noticed without an address).
		host := r.Host
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return fmt.Sprintf("refused %s: %s; --allow-host %s lets it through nsrun's filter, --net host gives the sandbox the host's network", target, r.Reason, host)
	}
	rule := r.Addr.String()
	if r.Port != 0 {
		rule = net.JoinHostPort(rule, fmt.Sprint(r.Port))
	} else if r.Addr.Is6() {
		rule = "[" + rule + "]"
	}
	return fmt.Sprintf("refused %s: it resolves to %s, a %s address, which an allowed name may not lead to; --allow-host %s (that address) or --allow-private-hosts lets it", target, r.Addr, r.Class, rule)
}

// cleanup frees what planning took: the listeners on the host.
func (np *netPlan) cleanup() {
	if np == nil {
		return
	}
	if np.cfg.Proxy != nil {
		np.cfg.Proxy.Close()
	}
	for _, p := range np.cfg.Publish {
		p.Host.Close()
	}
}

// proxyVariables are the variables that point programs at a proxy.
var proxyVariables = []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"}

// proxyEnv points env's proxy variables at the proxy, leaving those the
// caller set (explicit: env is the caller's own, not the environment
// inherited), and replacing inherited ones, which name proxies of the
// host's network the sandbox cannot reach.
func proxyEnv(env []string, proxy string, explicit bool) []string {
	values := map[string]string{"all_proxy": "socks5h://" + proxy, "no_proxy": "localhost,127.0.0.1,::1"}
	values["http_proxy"], values["https_proxy"] = "http://"+proxy, "http://"+proxy
	set := map[string]bool{}
	out := make([]string, 0, len(env)+len(proxyVariables))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := values[strings.ToLower(k)]; ours && !explicit {
			continue
		}
		set[k] = true
		out = append(out, kv)
	}
	for _, k := range proxyVariables {
		if !set[k] {
			out = append(out, k+"="+values[strings.ToLower(k)])
		}
	}
	return out
}

// netFiles are the sandbox's own /etc/resolv.conf (nsrun's DNS) and
// /etc/hosts, at the paths those names lead to inside root.
func netFiles(root, hostname string) []mounts.File {
	if hostname == "" {
		hostname, _ = os.Hostname()
	}
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	if hostname != "" && hostname != "localhost" {
		hosts += "127.0.0.1\t" + hostname + "\n"
	}
	var files []mounts.File
	for _, f := range []mounts.File{
		{Path: "/etc/resolv.conf", Content: "# nsrun: names resolve through nsrun, which answers only the allowed ones\nnameserver 127.0.0.1\n"},
		{Path: "/etc/hosts", Content: hosts},
	} {
		f.Path = plan.PathInRoot(root, f.Path)
		if fi, err := os.Stat(filepath.Join(root, f.Path)); err == nil && !fi.Mode().IsRegular() {
			continue // nothing a file can be mounted on
		}
		files = append(files, f)
	}
	return files
}

func networkCounts(cs []netproxy.Count) []NetworkCount {
	out := make([]NetworkCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, NetworkCount(c))
	}
	return out
}

// landlockPolicy is p for the Landlock layers of a Landlock-only sandbox
// whose network is the proxy: TCP connects to the proxy's port alone (and,
// as for --net none, nothing bound).
func (np *netPlan) landlockPolicy(p *Policy) *Policy {
	with := *p
	port := netip.MustParseAddrPort(np.proxy).Port()
	with.AllowConnect = []PortRange{{Proto: "tcp", First: port, Last: port}}
	return &with
}

// addTCPOnly adds the seccomp.TCPOnly filter to a Landlock-only sandbox's layers,
// which must limit TCP connects: without it nothing keeps the payload off
// every other host.
func (np *netPlan) addTCPOnly(p *Policy, l *plan.Layers) error {
	if l.Landlock == nil || l.Landlock.Handled.Net&landlock.ConnectTCP == 0 {
		return &NetError{Option: "allow-host", Err: fmt.Errorf("with --isolation landlock needs Landlock's TCP rules (ABI 4) to keep connections to nsrun's proxy; this kernel has ABI %d", l.LandlockReport.ABI)}
	}
	if p.Seccomp == "off" {
		return &NetError{Option: "allow-host", Err: errors.New("with --isolation landlock needs seccomp to keep every socket but TCP to the proxy closed; seccomp is off")}
	}
	compiled, err := seccomp.Compile(seccomp.TCPOnly())
	if err != nil {
		return &SetupError{Code: ExitSetup, Op: "seccomp tcp-only filter", Err: err}
	}
	l.Seccomp = append(l.Seccomp, compiled.Program)
	l.SeccompReport.SyscallsBlocked += compiled.Blocked
	return nil
}

// landlockNetNotEnforced is what a Landlock-only sandbox's filtered
// network gives up, for the report.
func landlockNetNotEnforced(proxy string, listenChecked bool) []string {
	port := netip.MustParseAddrPort(proxy).Port()
	out := []string{
		fmt.Sprintf("network: TCP connects are limited to port %d, the proxy's, but on any address (Landlock rules name ports, not addresses)", port),
		"network: no DNS and no transparent forwarding (no network namespace): only programs that use the proxy variables reach the allowed hosts",
	}
	if !listenChecked {
		out = append(out, "network: listen() on a TCP socket never bound binds a port of the host's that no Landlock rule sees (binding one is refused; checking it needs pidfd_getfd, refused here)")
	}
	return out
}

// loopbackAddrs are the addresses the init gives lo, as text.
func (np *netPlan) loopbackAddrs() []string {
	var out []string
	for _, a := range np.cfg.Policy.LocalAddrs() {
		out = append(out, a.String())
	}
	return out
}

// servesNetwork reports whether nsrun serves a proxy and DNS inside p's
// sandbox: a filtered network, or a refusing one.
func (p *Policy) servesNetwork() bool {
	return p.filtersNetwork() || p.refusesNetwork()
}
