package nsrun

import (
	"runtime"

	"github.com/nsrun/nsrun/netproxy"
)

// filtersNetwork reports whether p asks for the filtered network.
func (p *Policy) filtersNetwork() bool {
	return len(p.AllowHosts) > 0 || p.HostAllowed != nil || len(p.Publish) > 0 || len(p.HostPorts) > 0
}

// RefusesNetwork reports whether a sandbox of p gets nsrun's refusing
// proxy and DNS: RefuseNetwork is set and the rest of p lets it be
// served (Linux, NetNone, the default isolation, no filtered network,
// port rules that let the proxy's port).
func (p *Policy) RefusesNetwork() bool {
	return p.refusesNetwork()
}

func (p *Policy) refusesNetwork() bool {
	// Port rules that leave out the proxy's port would turn its answer
	// into EACCES: then there is nothing to explain through it.
	proxyReachable := len(p.AllowConnect) == 0 || portIn(p.AllowConnect, netproxy.ProxyAddr.Port())
	return runtime.GOOS == "linux" && p.RefuseNetwork && p.Net == NetNone && p.Isolation != IsolationLandlock && !p.filtersNetwork() && proxyReachable
}

// networkReport is the report's network section before the run (every
// backend's).
func networkReport(p *Policy) *NetworkReport {
	r := &NetworkReport{Mode: "none", Allowed: []string{}, Connections: []NetworkCount{}, Denied: []NetworkCount{}}
	if p.Net == NetHost {
		r.Mode = "host"
	}
	return r
}

// portIn reports whether a TCP port is in ranges.
func portIn(ranges []PortRange, port uint16) bool {
	for _, r := range ranges {
		if r.Proto != "udp" && r.First <= port && port <= r.Last {
			return true
		}
	}
	return false
}
