package nsrun

// filtersNetwork reports whether p asks for the filtered network.
func (p *Policy) filtersNetwork() bool {
	return len(p.AllowHosts) > 0 || p.HostAllowed != nil || len(p.Publish) > 0 || len(p.HostPorts) > 0
}

// refusesNetwork reports whether p has no network but nsrun's refusing
// proxy and DNS (Policy.RefuseNetwork).
func (p *Policy) refusesNetwork() bool {
	return p.RefuseNetwork && p.Net == NetNone && p.Isolation != IsolationLandlock && !p.filtersNetwork()
}

// servesNetwork reports whether nsrun serves a proxy and DNS inside p's
// sandbox: a filtered network, or a refusing one.
func (p *Policy) servesNetwork() bool {
	return p.filtersNetwork() || p.refusesNetwork()
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
