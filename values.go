package nsrun

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/nsrun/nsrun/netproxy"
)

// ParsePortRange takes PORT or FIRST-LAST, optionally after "tcp:" or "udp:"
// (TCP when not said).
func ParsePortRange(v string) (PortRange, error) {
	r := PortRange{Proto: "tcp"}
	if proto, rest, ok := strings.Cut(v, ":"); ok {
		if proto != "tcp" && proto != "udp" {
			return r, errors.New("want tcp: or udp: before the port")
		}
		r.Proto, v = proto, rest
	}
	first, last, isRange := strings.Cut(v, "-")
	a, err := strconv.ParseUint(first, 10, 16)
	b := a
	if err == nil && isRange {
		b, err = strconv.ParseUint(last, 10, 16)
	}
	if err != nil || a == 0 || b < a {
		return r, errors.New("want a port from 1 to 65535 or a range FIRST-LAST")
	}
	r.First, r.Last = uint16(a), uint16(b)
	return r, nil
}

// ParseTimeout takes a Go duration ("90s", "1m30s") or whole seconds.
func ParseTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		n, nerr := strconv.ParseUint(v, 10, 32)
		if nerr != nil {
			return 0, errors.New("want a duration such as 30s or 2m, or whole seconds")
		}
		d = time.Duration(n) * time.Second
	}
	if d <= 0 {
		return 0, errors.New("must be positive")
	}
	return d, nil
}

// RlimitInfinity is "unlimited".
const RlimitInfinity = ^uint64(0)

// Rlimit is a resource limit for the payload, named as in prlimit(1).
type Rlimit struct {
	Name       string
	Soft, Hard uint64
}

// RlimitNames are the limits Rlimit may name.
var RlimitNames = []string{"nofile", "nproc", "as", "cpu", "fsize", "core", "stack", "memlock"}

// ParseRlimit takes NAME=SOFT[:HARD] as prlimit(1) does: one value sets
// both; "unlimited" is infinity.
func ParseRlimit(v string) (Rlimit, error) {
	name, val, ok := strings.Cut(v, "=")
	known := false
	for _, n := range RlimitNames {
		known = known || n == name
	}
	if !ok || !known {
		return Rlimit{}, errors.New("want NAME=SOFT[:HARD] with NAME one of " + strings.Join(RlimitNames, ", "))
	}
	num := func(s string) (uint64, error) {
		if s == "unlimited" || s == "infinity" {
			return RlimitInfinity, nil
		}
		return strconv.ParseUint(s, 10, 64)
	}
	soft, hard, two := strings.Cut(val, ":")
	a, err := num(soft)
	b := a
	if err == nil && two {
		b, err = num(hard)
	}
	if err != nil {
		return Rlimit{}, errors.New("want numbers or unlimited")
	}
	if a > b {
		return Rlimit{}, errors.New("the soft limit is above the hard one")
	}
	return Rlimit{Name: name, Soft: a, Hard: b}, nil
}

// ParseSize takes a byte count with an optional K, M, G or T suffix
// (powers of 1024).
func ParseSize(v string) (uint64, error) {
	mult := uint64(1)
	if n := len(v); n > 0 {
		switch strings.ToUpper(v[n-1:]) {
		case "K":
			mult = 1 << 10
		case "M":
			mult = 1 << 20
		case "G":
			mult = 1 << 30
		case "T":
			mult = 1 << 40
		}
		if mult != 1 {
			v = v[:n-1]
		}
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 || n > ^uint64(0)/mult {
		return 0, errors.New("want a positive size such as 64M")
	}
	return n * mult, nil
}

// ParsePublish takes [HOSTADDR:]HOSTPORT:PORT: the host listens on
// HOSTADDR (default 127.0.0.1; IPv6 in brackets) at HOSTPORT and carries
// each connection to PORT inside.
func ParsePublish(v string) (Publish, error) {
	addr := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	rest := v
	if strings.HasPrefix(v, "[") {
		a, after, ok := strings.Cut(v[1:], "]:")
		ip, err := netip.ParseAddr(a)
		if !ok || err != nil || !ip.Is6() || ip.Zone() != "" {
			return Publish{}, errors.New("want [IPV6]:HOSTPORT:PORT")
		}
		addr, rest = ip, after
	} else if parts := strings.Split(v, ":"); len(parts) == 3 {
		ip, err := netip.ParseAddr(parts[0])
		if err != nil || !ip.Is4() {
			return Publish{}, fmt.Errorf("host address %q: want an IPv4 address, or IPv6 in brackets", parts[0])
		}
		addr, rest = ip, parts[1]+":"+parts[2]
	}
	hostPort, port, ok := strings.Cut(rest, ":")
	if !ok {
		return Publish{}, errors.New("want [HOSTADDR:]HOSTPORT:PORT")
	}
	hp, err := netproxy.ParsePort(hostPort)
	if err != nil {
		return Publish{}, fmt.Errorf("host %w", err)
	}
	p, err := netproxy.ParsePort(port)
	if err != nil {
		return Publish{}, err
	}
	return Publish{Host: netip.AddrPortFrom(addr, hp), Port: p}, nil
}

// ParseHostPorts takes PORT or FIRST-LAST (TCP).
func ParseHostPorts(v string) (PortRange, error) {
	if strings.Contains(v, ":") {
		return PortRange{}, errors.New("want PORT or FIRST-LAST (TCP only)")
	}
	return ParsePortRange(v)
}

// ParseAddHost takes NAME=ADDR.
func ParseAddHost(v string) (name string, addr netip.Addr, err error) {
	n, a, ok := strings.Cut(v, "=")
	if !ok {
		return "", netip.Addr{}, errors.New("want NAME=ADDRESS")
	}
	if name, err = netproxy.NormalizeName(n); err != nil {
		return "", netip.Addr{}, err
	}
	if addr, err = netip.ParseAddr(a); err != nil || addr.Zone() != "" {
		return "", netip.Addr{}, fmt.Errorf("%q is not an IP address", a)
	}
	return name, addr.Unmap(), nil
}
