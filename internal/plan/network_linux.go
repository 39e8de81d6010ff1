package plan

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/seccomp"
)

// NetRequest is what of a policy its network is checked and planned from.
type NetRequest struct {
	// Filtered: the policy asks for the filtered network (hosts, a host
	// hook, published or host ports).
	Filtered bool
	// Refused: the policy asks for the refusing server (RefuseNetwork, and
	// nothing keeps it from being served).
	Refused           bool
	HostNet, Landlock bool // --net host; --isolation landlock
	AllowHosts        []string
	AllowPrivateHosts bool
	AddHosts          []AddHost
	HostAllowed       func(host string, port int) bool
	Dial              func(ctx context.Context, network, address string) (net.Conn, error)
	Resolve           func(ctx context.Context, host string) ([]netip.Addr, error)
	HostPorts         []launch.PortRange
	Publish           []Publish
	AllowConnect      []launch.PortRange

	// Log gets the server's refusals, Warnings those a user may not
	// expect; Warn is the caller's warning.
	Log, Warnings io.Writer
	Warn          func(format string, a ...any)
}

// AddHost is an --add-host as parsed: Err says why Given is not NAME=ADDRESS.
type AddHost struct {
	Given string
	Name  string
	Addr  netip.Addr
	Err   error
}

// Publish is a host address and port forwarded to a port inside.
type Publish struct {
	Host netip.AddrPort
	Port uint16
}

// String writes pb as --publish takes it.
func (pb Publish) String() string { return fmt.Sprintf("%s:%d", pb.Host, pb.Port) }

func portRangeString(r launch.PortRange) string {
	if r.First == r.Last {
		return fmt.Sprint(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// Net is a sandbox's served network as planned: the server's
// configuration, what the payload gets to use it, and what the report
// says of it.
type Net struct {
	Config netproxy.Config
	Proxy  string // host:port of the proxy as the payload reaches it
	Report NetReport
}

// NetReport is what planning says of the network in the report; the
// zero value of a field leaves the report's as it was.
type NetReport struct {
	Mode              string // "filtered", or "" (the report's stays)
	Allowed           []string
	AllowPrivateHosts bool
	Proxy, DNS        string
	HostPorts         []string
	Publish           []string
}

// noNetwork is the reason the refusing server of Policy.RefuseNetwork
// gives.
const noNetwork = "the sandbox has no network (--net none)"

// PlanNetwork decides the served network of r, or returns nil when r
// neither filters nor refuses it. landlockOnly serves the proxy on the
// host's loopback (there is no network namespace to serve it in), and
// never the refusing server. The listeners it opens are the caller's to
// close (Net.Cleanup).
func PlanNetwork(r *NetRequest, landlockOnly bool) (*Net, error) {
	if err := CheckNetwork(r); err != nil {
		return nil, err
	}
	if r.Refused && !landlockOnly {
		return r.refusal(), nil
	}
	if !r.Filtered {
		return nil, nil
	}
	pol, err := netproxy.ParsePolicy(r.AllowHosts, r.AllowPrivateHosts)
	if err != nil {
		return nil, netError("allow-host", "", err)
	}
	n := &Net{Config: netproxy.Config{Policy: pol, Allow: r.HostAllowed, Resolve: r.Resolve, Dial: r.Dial}}
	if len(r.AddHosts) > 0 {
		n.Config.Hosts = map[string][]netip.Addr{}
		for _, h := range r.AddHosts {
			n.Config.Hosts[h.Name] = append(n.Config.Hosts[h.Name], h.Addr)
		}
	}
	for _, pr := range r.HostPorts {
		for port := int(pr.First); port <= int(pr.Last); port++ {
			n.Config.HostPorts = append(n.Config.HostPorts, uint16(port))
		}
		n.Report.HostPorts = append(n.Report.HostPorts, portRangeString(pr))
	}
	for _, pb := range r.Publish {
		// Listening now makes a port in use an error before anything runs.
		ln, err := net.Listen("tcp", pb.Host.String())
		if err != nil {
			n.Cleanup()
			return nil, netError("publish", pb.String(), err)
		}
		n.Config.Publish = append(n.Config.Publish, netproxy.Publish{Host: ln, Port: pb.Port})
		n.Report.Publish = append(n.Report.Publish, pb.String())
	}
	r.logs(&n.Config)
	n.Proxy = netproxy.ProxyAddr.String()
	if len(r.AllowConnect) > 0 && !landlockOnly && !portIn(r.AllowConnect, netproxy.ProxyAddr.Port()) {
		r.Warn("--allow-connect leaves out port %d, nsrun's proxy: only programs that connect straight to the allowed names reach them", netproxy.ProxyAddr.Port())
	}
	if landlockOnly {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			n.Cleanup()
			return nil, &Error{Op: "the proxy on the host's loopback", Err: err}
		}
		n.Config.Proxy, n.Proxy = ln, ln.Addr().String()
	} else {
		n.Report.DNS = netproxy.DNSAddr.String()
	}
	n.Report.Mode, n.Report.Allowed, n.Report.AllowPrivateHosts, n.Report.Proxy = "filtered", pol.Strings(), r.AllowPrivateHosts, n.Proxy
	return n, nil
}

// portIn reports whether a TCP port is in ranges.
func portIn(ranges []launch.PortRange, port uint16) bool {
	for _, r := range ranges {
		if r.Proto != "udp" && r.First <= port && port <= r.Last {
			return true
		}
	}
	return false
}

// refusal is the server of Policy.RefuseNetwork: the proxy and DNS
// inside, refusing every host; the report's mode stays none.
func (r *NetRequest) refusal() *Net {
	n := &Net{Config: netproxy.Config{RefuseAll: noNetwork}, Proxy: netproxy.ProxyAddr.String()}
	r.logs(&n.Config)
	n.Report.Proxy, n.Report.DNS = n.Proxy, netproxy.DNSAddr.String()
	return n
}

// logs sends the server's refusals to Log (every first one of a host and
// port), and those a user may not expect to Warnings (once per host).
func (r *NetRequest) logs(cfg *netproxy.Config) {
	var mu sync.Mutex
	if r.Log != nil {
		cfg.Log = func(line string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(r.Log, "nsrun: %s\n", line)
		}
	}
	if r.Warnings != nil {
		cfg.Notice = func(rf netproxy.Refusal) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(r.Warnings, "nsrun: warning: network: %s\n", refusalLine(rf))
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

// Cleanup frees what planning took: the listeners on the host.
func (n *Net) Cleanup() {
	if n == nil {
		return
	}
	if n.Config.Proxy != nil {
		n.Config.Proxy.Close()
	}
	for _, p := range n.Config.Publish {
		p.Host.Close()
	}
}

// LoopbackAddrs are the addresses the init gives lo, as text.
func (n *Net) LoopbackAddrs() []string {
	var out []string
	for _, a := range n.Config.Policy.LocalAddrs() {
		out = append(out, a.String())
	}
	return out
}

// ProxyPort is the port of the proxy as the payload reaches it.
func (n *Net) ProxyPort() uint16 { return netip.MustParseAddrPort(n.Proxy).Port() }

// proxyVariables are the variables that point programs at a proxy.
var proxyVariables = []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"}

// ProxyEnv points env's proxy variables at the proxy, leaving those the
// caller set (explicit: env is the caller's own, not the environment
// inherited), and replacing inherited ones, which name proxies of the
// host's network the sandbox cannot reach.
func ProxyEnv(env []string, proxy string, explicit bool) []string {
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

// NetFiles are the sandbox's own /etc/resolv.conf (nsrun's DNS) and
// /etc/hosts, at the paths those names lead to inside root.
func NetFiles(root, hostname string) []mounts.File {
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
		f.Path = PathInRoot(root, f.Path)
		if fi, err := os.Stat(filepath.Join(root, f.Path)); err == nil && !fi.Mode().IsRegular() {
			continue // nothing a file can be mounted on
		}
		files = append(files, f)
	}
	return files
}

// AddTCPOnly adds the seccomp.TCPOnly filter to a Landlock-only sandbox's
// layers, which must limit TCP connects: without it nothing keeps the
// payload off every other host. seccompOff is --seccomp off.
func AddTCPOnly(l *Layers, seccompOff bool) error {
	if l.Landlock == nil || l.Landlock.Handled.Net&landlock.ConnectTCP == 0 {
		return netError("allow-host", "", errs.New("with %s needs Landlock's TCP rules (ABI 4) to keep connections to nsrun's proxy; this kernel has ABI %d", errs.IsolationLandlock, l.LandlockReport.ABI))
	}
	if seccompOff {
		return netError("allow-host", "", errs.New("with %s needs seccomp to keep every socket but TCP to the proxy closed; seccomp is off", errs.IsolationLandlock))
	}
	compiled, err := seccomp.Compile(seccomp.TCPOnly())
	if err != nil {
		return &Error{Op: "seccomp tcp-only filter", Err: err}
	}
	l.Seccomp = append(l.Seccomp, compiled.Program)
	l.SeccompReport.SyscallsBlocked += compiled.Blocked
	return nil
}

// LandlockNetNotEnforced is what a Landlock-only sandbox's filtered
// network gives up, for the report.
func LandlockNetNotEnforced(proxy string, listenChecked bool) []string {
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
