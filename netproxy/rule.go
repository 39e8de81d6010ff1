package netproxy

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// DefaultPorts are the ports of a rule that names none: HTTP and HTTPS.
var DefaultPorts = []uint16{80, 443}

// Rule allows a host pattern on some ports: an exact name, every name
// below a domain ("*.example.org": a.example.org and a.b.example.org, not
// example.org itself), or an address range (an IP literal is a range of
// one).
type Rule struct {
	// Name is the exact name, or with Wildcard the domain below which
	// names match. Empty for an address rule.
	Name     string
	Wildcard bool
	// Prefix is the addresses of an IP literal or CIDR rule.
	Prefix netip.Prefix
	// Ports are sorted and distinct.
	Ports []uint16
}

// ParseRule reads PATTERN[:PORT]: a host name, "*." and a domain, an IPv4
// address or CIDR, or an IPv6 address or CIDR (in brackets when a port
// follows). Without a port the rule allows DefaultPorts.
func ParseRule(s string) (Rule, error) {
	if s == "" {
		return Rule{}, errors.New("empty pattern")
	}
	if strings.Contains(s, "://") {
		return Rule{}, errors.New("want a host name or address, not a URL")
	}
	host, port, bracketed, err := splitPattern(s)
	if err != nil {
		return Rule{}, err
	}
	r := Rule{Ports: DefaultPorts}
	if port != nil {
		p, err := ParsePort(*port)
		if err != nil {
			return Rule{}, err
		}
		r.Ports = []uint16{p}
	}
	r.Ports = slices.Clone(r.Ports)
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return Rule{}, errors.New("an address with a zone cannot be allowed")
		}
		a = a.Unmap()
		r.Prefix = netip.PrefixFrom(a, a.BitLen())
		return r, nil
	}
	if strings.Contains(host, "/") || bracketed {
		p, err := netip.ParsePrefix(host)
		if err != nil {
			return Rule{}, fmt.Errorf("not an address range: %v", err)
		}
		if p.Addr().Is4In6() {
			return Rule{}, errors.New("write an IPv4 range in IPv4 form")
		}
		r.Prefix = p.Masked()
		return r, nil
	}
	if host == "*" {
		return Rule{}, errors.New("\"*\" would allow every host: name the hosts")
	}
	name, wild := strings.CutPrefix(host, "*.")
	if strings.Contains(name, "*") {
		return Rule{}, errors.New("a wildcard is only allowed as a leading \"*.\"")
	}
	if r.Name, err = NormalizeName(name); err != nil {
		return Rule{}, err
	}
	r.Wildcard = wild
	return r, nil
}

// splitPattern separates a pattern's host from its port (nil if none);
// bracketed says the host was in brackets, which only IPv6 may be.
func splitPattern(s string) (host string, port *string, bracketed bool, err error) {
	if rest, ok := strings.CutPrefix(s, "["); ok {
		host, after, ok := strings.Cut(rest, "]")
		if !ok || host == "" {
			return "", nil, false, errors.New("an unclosed [")
		}
		if !strings.Contains(host, ":") {
			return "", nil, false, errors.New("only an IPv6 address goes in brackets")
		}
		if after == "" {
			return host, nil, true, nil
		}
		p, ok := strings.CutPrefix(after, ":")
		if !ok {
			return "", nil, false, fmt.Errorf("%q after ]: want :PORT", after)
		}
		return host, &p, true, nil
	}
	if strings.Count(s, ":") > 1 {
		// A bare IPv6 address or range; a port needs brackets.
		if _, err := netip.ParseAddr(s); err == nil {
			return s, nil, false, nil
		}
		if _, err := netip.ParsePrefix(s); err == nil {
			return s, nil, false, nil
		}
		return "", nil, false, errors.New("not an IPv6 address (with a port, write it as [ADDRESS]:PORT)")
	}
	host, p, hasPort := strings.Cut(s, ":")
	if host == "" {
		return "", nil, false, errors.New("no host before the port")
	}
	if !hasPort {
		return host, nil, false, nil
	}
	return host, &p, false, nil
}

// ParsePort reads a port from 1 to 65535.
func ParsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("port %q: want 1 to 65535", s)
	}
	return uint16(n), nil
}

// NormalizeName lowercases a host name and drops one trailing dot, or
// says why it is not one: labels of 1 to 63 letters, digits, '-' and '_',
// 253 characters at most, and not all digits at the end (a number there
// reads as an IPv4 address to some resolvers). Names in another script go
// in their ASCII (punycode) form.
func NormalizeName(s string) (string, error) {
	name := strings.ToLower(strings.TrimSuffix(s, "."))
	if name == "" {
		return "", errors.New("empty host name")
	}
	if len(name) > 253 {
		return "", errors.New("host name longer than 253 characters")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", fmt.Errorf("host name %q: a label is empty or longer than 63 characters", s)
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "", fmt.Errorf("host name %q: a label starts or ends with '-'", s)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				if c >= 0x80 {
					return "", fmt.Errorf("host name %q: write it in its ASCII (punycode) form", s)
				}
				return "", fmt.Errorf("host name %q: %q is not allowed in a host name", s, c)
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "", fmt.Errorf("%q is neither an IP address nor a host name", s)
	}
	return name, nil
}

// IsAddr reports whether the rule is an address rule.
func (r Rule) IsAddr() bool { return r.Prefix.IsValid() }

// MatchName reports whether a normalized name matches the rule.
func (r Rule) MatchName(name string) bool {
	if r.IsAddr() {
		return false
	}
	if !r.Wildcard {
		return name == r.Name
	}
	return len(name) > len(r.Name)+1 && strings.HasSuffix(name, "."+r.Name)
}

// MatchAddr reports whether the rule's range holds a.
func (r Rule) MatchAddr(a netip.Addr) bool {
	return r.IsAddr() && r.Prefix.Contains(a.Unmap().WithZone(""))
}

// HasPort reports whether the rule allows port.
func (r Rule) HasPort(port uint16) bool {
	_, ok := slices.BinarySearch(r.Ports, port)
	return ok
}

// Pattern is the rule's host part as it would be written.
func (r Rule) Pattern() string {
	switch {
	case r.IsAddr() && r.Prefix.IsSingleIP():
		return r.Prefix.Addr().String()
	case r.IsAddr():
		return r.Prefix.String()
	case r.Wildcard:
		return "*." + r.Name
	}
	return r.Name
}

// Strings are the rule written once per port, PATTERN:PORT (IPv6 in
// brackets).
func (r Rule) Strings() []string {
	host := r.Pattern()
	if r.IsAddr() && r.Prefix.Addr().Is6() {
		host = "[" + host + "]"
	}
	out := make([]string, 0, len(r.Ports))
	for _, p := range r.Ports {
		out = append(out, host+":"+strconv.Itoa(int(p)))
	}
	return out
}
