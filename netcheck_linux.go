package nsrun

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/nsrun/nsrun/netproxy"
)

// maxHostPorts bounds --host-port: each port is a listener.
const maxHostPorts = 1024

// checkNetwork refuses network settings that cannot be honoured as
// written, naming the option.
func (p *Policy) checkNetwork() error {
	if !p.filtersNetwork() {
		for _, o := range []struct {
			set  bool
			name string
		}{{p.AllowPrivateHosts, "allow-private-hosts"}, {len(p.AddHosts) > 0, "add-host"}, {p.Dial != nil, "Dial"}, {p.Resolve != nil, "Resolve"}} {
			if o.set {
				return &NetError{Option: o.name, Err: errors.New("means nothing without --allow-host (or a host hook)")}
			}
		}
		return nil
	}
	if p.Net == NetHost {
		opt := "allow-host"
		switch {
		case len(p.Publish) > 0:
			opt = "publish"
		case len(p.HostPorts) > 0:
			opt = "host-port"
		}
		return &NetError{Option: opt, Err: errors.New("filters the sandbox's own network namespace, and --net host has none: every host is reachable there")}
	}
	if p.Isolation == IsolationLandlock {
		switch {
		case len(p.Publish) > 0:
			return &NetError{Option: "publish", Err: errors.New("needs a network namespace, which --isolation landlock does not create")}
		case len(p.HostPorts) > 0:
			return &NetError{Option: "host-port", Err: errors.New("needs a network namespace, which --isolation landlock does not create (its Landlock port rules cannot name an address)")}
		}
	}
	for _, h := range p.AllowHosts {
		if _, err := netproxy.ParseRule(h); err != nil {
			return &NetError{Option: "allow-host", Value: h, Err: err}
		}
	}
	for _, h := range p.AddHosts {
		if _, _, err := ParseAddHost(h); err != nil {
			return &NetError{Option: "add-host", Value: h, Err: err}
		}
	}
	// The ports inside that nsrun listens on; a published port is the
	// payload's to listen on.
	nsrunPort := func(port uint16) error {
		switch port {
		case netproxy.ProxyAddr.Port():
			return fmt.Errorf("port %d inside is nsrun's proxy", port)
		case netproxy.DNSAddr.Port():
			return fmt.Errorf("port %d inside is nsrun's DNS", port)
		}
		return nil
	}
	ports, hostPorts := 0, map[uint16]bool{}
	for _, r := range p.HostPorts {
		if r.Proto != "" && r.Proto != "tcp" || r.First == 0 || r.Last < r.First {
			return &NetError{Option: "host-port", Value: portRangeString(r), Err: errors.New("want TCP ports from 1 to 65535")}
		}
		for port := int(r.First); port <= int(r.Last); port++ {
			if err := nsrunPort(uint16(port)); err != nil {
				return &NetError{Option: "host-port", Value: portRangeString(r), Err: err}
			}
			hostPorts[uint16(port)] = true
		}
		if ports += int(r.Last-r.First) + 1; ports > maxHostPorts {
			return &NetError{Option: "host-port", Value: portRangeString(r), Err: fmt.Errorf("more than %d ports in all", maxHostPorts)}
		}
	}
	hosts := map[netip.AddrPort]bool{}
	for _, pb := range p.Publish {
		v := publishString(pb)
		if !pb.Host.IsValid() || pb.Host.Port() == 0 || pb.Port == 0 {
			return &NetError{Option: "publish", Value: v, Err: errors.New("want a host address and port and a port inside")}
		}
		if err := nsrunPort(pb.Port); err != nil {
			return &NetError{Option: "publish", Value: v, Err: err}
		}
		if hostPorts[pb.Port] {
			return &NetError{Option: "publish", Value: v, Err: fmt.Errorf("port %d inside is also a --host-port", pb.Port)}
		}
		if hosts[pb.Host] {
			return &NetError{Option: "publish", Value: v, Err: errors.New("the host address and port are published twice")}
		}
		hosts[pb.Host] = true
	}
	return nil
}

func portRangeString(r PortRange) string {
	if r.First == r.Last {
		return fmt.Sprint(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// publishString writes pb as --publish takes it.
func publishString(pb Publish) string {
	return fmt.Sprintf("%s:%d", pb.Host, pb.Port)
}
