package netproxy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Policy is what a sandbox may reach: its rules, and whether a name may
// lead to a non-public address. It decides without any I/O.
type Policy struct {
	Rules []Rule
	// AllowPrivate lets names lead to loopback, link-local, private and
	// other non-public addresses. Without it only an address rule lets a
	// name lead there.
	AllowPrivate bool
}

// ParsePolicy parses each pattern with ParseRule.
func ParsePolicy(patterns []string, allowPrivate bool) (Policy, error) {
	p := Policy{AllowPrivate: allowPrivate}
	for _, s := range patterns {
		r, err := ParseRule(s)
		if err != nil {
			return Policy{}, &PatternError{Pattern: s, Err: err}
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}

// PatternError is a host pattern that cannot be read.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return fmt.Sprintf("%q: %v", e.Pattern, e.Err) }
func (e *PatternError) Unwrap() error { return e.Err }

// NamePorts are the ports the rules allow for a normalized name, sorted;
// none if no rule matches it.
func (p *Policy) NamePorts(name string) []uint16 {
	var ports []uint16
	for _, r := range p.Rules {
		if r.MatchName(name) {
			ports = append(ports, r.Ports...)
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// AllowsName reports whether a rule allows the name on port.
func (p *Policy) AllowsName(name string, port uint16) bool {
	for _, r := range p.Rules {
		if r.MatchName(name) && r.HasPort(port) {
			return true
		}
	}
	return false
}

// AllowsAddr reports whether an address rule allows a on port.
func (p *Policy) AllowsAddr(a netip.Addr, port uint16) bool {
	for _, r := range p.Rules {
		if r.MatchAddr(a) && r.HasPort(port) {
			return true
		}
	}
	return false
}

// Usable filters the addresses a name resolved to down to those a
// connection on port may go to: public ones, those an address rule allows,
// and with AllowPrivate all. When none is left, why names the first
// refused address and its class.
func (p *Policy) Usable(addrs []netip.Addr, port uint16) (ok []netip.Addr, why string) {
	for _, a := range addrs {
		a = a.Unmap().WithZone("")
		class := Class(a)
		if class == ClassPublic || p.AllowPrivate || p.AllowsAddr(a, port) {
			ok = append(ok, a)
		} else if why == "" {
			why = fmt.Sprintf("it resolves to %s, a %s address (a rule naming the address, or private hosts allowed, lets it)", a, class)
		}
	}
	return ok, why
}

// Captured are the addresses of single-address rules that the server also
// listens on inside (on their ports), so that a program connecting to the
// address itself, not through the proxy, reaches it: all but those in
// the names' range, unspecified and multicast ones. Those outside 127/8
// and ::1 must first be given to the sandbox's lo (see LocalAddrs).
func (p *Policy) Captured() []netip.Addr {
	var out []netip.Addr
	for _, r := range p.Rules {
		if !r.IsAddr() || !r.Prefix.IsSingleIP() {
			continue
		}
		a := r.Prefix.Addr()
		if fakeNet.Contains(a) || a.IsUnspecified() || a.IsMulticast() || slices.Contains(out, a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// LocalAddrs are the Captured addresses the sandbox's lo lacks.
func (p *Policy) LocalAddrs() []netip.Addr {
	var out []netip.Addr
	for _, a := range p.Captured() {
		if !a.IsLoopback() {
			out = append(out, a)
		}
	}
	return out
}

// Strings are the rules, one PATTERN:PORT each.
func (p *Policy) Strings() []string {
	out := []string{}
	for _, r := range p.Rules {
		out = append(out, r.Strings()...)
	}
	return out
}

// hostAddr reads a host as a request names it: an IP literal (brackets
// allowed, IPv4-mapped IPv6 unmapped) or a normalized name.
func hostAddr(host string) (netip.Addr, string, error) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}, "", fmt.Errorf("address %s has a zone", h)
		}
		return a.Unmap(), "", nil
	}
	if h != host {
		return netip.Addr{}, "", fmt.Errorf("%q is not an IPv6 address", host)
	}
	name, err := NormalizeName(host)
	return netip.Addr{}, name, err
}
