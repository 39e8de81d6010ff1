package nsrun

// filtersNetwork reports whether p asks for the filtered network.
func (p *Policy) filtersNetwork() bool {
	return len(p.AllowHosts) > 0 || p.HostAllowed != nil || len(p.Publish) > 0 || len(p.HostPorts) > 0
}
