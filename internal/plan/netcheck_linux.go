package plan

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/netproxy"
)

// maxHostPorts bounds --host-port: each port is a listener.
const maxHostPorts = 1024

// netError is a network setting (the command line's name) that cannot
// be applied.
func netError(setting, value string, err error) *Error {
	return &Error{Kind: KindNet, Setting: setting, Value: value, Err: err}
}

// CheckNetwork refuses network settings that cannot be honoured as
// written, naming the setting: the first in the order the settings are
// checked (the hooks and hosts, the namespace, the rules, the ports).
func CheckNetwork(r *NetRequest) error {
	if !r.Filtered {
		for _, o := range []struct {
			set  bool
			name string
		}{{r.AllowPrivateHosts, "allow-private-hosts"}, {len(r.AddHosts) > 0, "add-host"}, {r.Dial != nil, "Dial"}, {r.Resolve != nil, "Resolve"}} {
			if o.set {
				return netError(o.name, "", errs.New("means nothing without %s (or a host hook)", errs.AllowHost))
			}
		}
		return nil
	}
	if r.HostNet {
		opt := "allow-host"
		switch {
		case len(r.Publish) > 0:
			opt = "publish"
		case len(r.HostPorts) > 0:
			opt = "host-port"
		}
		return netError(opt, "", errs.New("filters the sandbox's own network namespace, and %s has none: every host is reachable there", errs.NetHost))
	}
	if r.Landlock {
		switch {
		case len(r.Publish) > 0:
			return netError("publish", "", errs.New("needs a network namespace, which %s does not create", errs.IsolationLandlock))
		case len(r.HostPorts) > 0:
			return netError("host-port", "", errs.New("needs a network namespace, which %s does not create (its Landlock port rules cannot name an address)", errs.IsolationLandlock))
		}
	}
	for _, h := range r.AllowHosts {
		if _, err := netproxy.ParseRule(h); err != nil {
			return netError("allow-host", h, err)
		}
	}
	for _, h := range r.AddHosts {
		if h.Err != nil {
			return netError("add-host", h.Given, h.Err)
		}
	}
	return checkPorts(r)
}

// nsrunPort refuses the ports inside that nsrun listens on; a published
// port is the payload's to listen on.
func nsrunPort(port uint16) error {
	switch port {
	case netproxy.ProxyAddr.Port():
		return fmt.Errorf("port %d inside is nsrun's proxy", port)
	case netproxy.DNSAddr.Port():
		return fmt.Errorf("port %d inside is nsrun's DNS", port)
	}
	return nil
}

// checkPorts refuses host ports and published ports that cannot be
// served: out of range, nsrun's own, too many, or twice.
func checkPorts(r *NetRequest) error {
	ports, hostPorts := 0, map[uint16]bool{}
	for _, pr := range r.HostPorts {
		if pr.Proto != "" && pr.Proto != "tcp" || pr.First == 0 || pr.Last < pr.First {
			return netError("host-port", portRangeString(pr), errors.New("want TCP ports from 1 to 65535"))
		}
		for port := int(pr.First); port <= int(pr.Last); port++ {
			if err := nsrunPort(uint16(port)); err != nil {
				return netError("host-port", portRangeString(pr), err)
			}
			hostPorts[uint16(port)] = true
		}
		if ports += int(pr.Last-pr.First) + 1; ports > maxHostPorts {
			return netError("host-port", portRangeString(pr), fmt.Errorf("more than %d ports in all", maxHostPorts))
		}
	}
	hosts := map[netip.AddrPort]bool{}
	for _, pb := range r.Publish {
		v := pb.String()
		if !pb.Host.IsValid() || pb.Host.Port() == 0 || pb.Port == 0 {
			return netError("publish", v, errors.New("want a host address and port and a port inside"))
		}
		if err := nsrunPort(pb.Port); err != nil {
			return netError("publish", v, err)
		}
		if hostPorts[pb.Port] {
			return netError("publish", v, errs.New("port %d inside is also a %s", pb.Port, errs.HostPorts))
		}
		if hosts[pb.Host] {
			return netError("publish", v, errors.New("the host address and port are published twice"))
		}
		hosts[pb.Host] = true
	}
	return nil
}
