package nsrun

// filtersNetwork reports whether p asks for the filtered network.
func (p *Policy) filtersNetwork() bool {
	return len(p.AllowHosts) > 0 || p.HostAllowed != nil || len(p.Publish) > 0 || len(p.HostPorts) > 0
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
