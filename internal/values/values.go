// Package values reads the option values the root package's Parse*
// functions take (ports, timeouts, resource limits, sizes, process and CPU
// counts, published ports, host names) and writes a size back as they read
// it. Each function returns the same error text, word for word, the root
// documents and the CLI prints after the option's name; the bounds are the
// root's MaxSize, MaxPids, MinCPU and MaxCPU (its TestValueBoundsAgree holds
// them equal). It works on every OS and imports of nsrun only netproxy,
// whose port and host-name rules a published port and an added host obey.
package values

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/nsrun/nsrun/netproxy"
)

// The bounds of the root's Policy, as it documents them.
const (
	MaxSize = math.MaxInt64
	MaxPids = 1 << 22
	MinCPU  = 0.01
	MaxCPU  = 4096
)

// PortRange is the root's PortRange: ports First to Last of Proto.
type PortRange struct {
	Proto       string
	First, Last uint16
}

// Rlimit is the root's Rlimit.
type Rlimit struct {
	Name       string
	Soft, Hard uint64
}

// Publish is the root's Publish.
type Publish struct {
	Host netip.AddrPort
	Port uint16
}

// RlimitInfinity is the root's RlimitInfinity, "unlimited".
const RlimitInfinity = ^uint64(0)

// ParsePortRange reads PORT or FIRST-LAST, optionally after "tcp:" or
// "udp:" (TCP when not said).
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

// maxTimeoutSeconds is the longest timeout in whole seconds, the most a
// time.Duration holds (about 292 years).
const maxTimeoutSeconds = uint64(math.MaxInt64 / int64(time.Second))

// ParseTimeout reads a Go duration ("90s", "1m30s") or whole seconds.
func ParseTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		n, nerr := strconv.ParseUint(v, 10, 64)
		if errors.Is(nerr, strconv.ErrRange) || nerr == nil && n > maxTimeoutSeconds {
			return 0, fmt.Errorf("%s is above %d seconds (about 292 years), the longest timeout", v, maxTimeoutSeconds)
		}
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

// ParseRlimit reads NAME=SOFT[:HARD], NAME one of names, as prlimit(1)
// does: one value sets both; "unlimited" is infinity.
func ParseRlimit(v string, names []string) (Rlimit, error) {
	name, val, ok := strings.Cut(v, "=")
	known := false
	for _, n := range names {
		known = known || n == name
	}
	if !ok || !known {
		return Rlimit{}, errors.New("want NAME=SOFT[:HARD] with NAME one of " + strings.Join(names, ", "))
	}
	num := func(s string) (uint64, error) {
		if s == "unlimited" || s == "infinity" {
			return RlimitInfinity, nil
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s is above %d, the largest limit (it means unlimited)", s, RlimitInfinity)
		}
		if err != nil {
			return 0, errors.New("want numbers or unlimited")
		}
		return n, nil
	}
	soft, hard, two := strings.Cut(val, ":")
	a, err := num(soft)
	b := a
	if err == nil && two {
		b, err = num(hard)
	}
	if err != nil {
		return Rlimit{}, err
	}
	if a > b {
		return Rlimit{}, errors.New("the soft limit is above the hard one")
	}
	return Rlimit{Name: name, Soft: a, Hard: b}, nil
}

// ParseSize reads a byte count with an optional K, M, G or T suffix
// (powers of 1024), from 1 to MaxSize.
func ParseSize(v string) (uint64, error) {
	digits, shift := v, uint(0)
	if n := len(v); n > 0 {
		switch strings.ToUpper(v[n-1:]) {
		case "K":
			shift = 10
		case "M":
			shift = 20
		case "G":
			shift = 30
		case "T":
			shift = 40
		}
		if shift != 0 {
			digits = v[:n-1]
		}
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && n > MaxSize>>shift:
		return 0, ErrSizeAbove
	case err != nil:
		return 0, errors.New("want a size such as 64M: bytes, or K, M, G or T of them (powers of 1024)")
	case n == 0:
		return 0, errors.New("want a size above zero")
	}
	return n << shift, nil
}

// ErrSizeAbove is a size above MaxSize.
var ErrSizeAbove = fmt.Errorf("is above %d bytes (8 EiB less one), the largest size Linux counts", uint64(MaxSize))

// ParsePids reads a number of processes from 1 to MaxPids.
func ParsePids(v string) (uint64, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("want a number of processes from 1 to %d", MaxPids)
	case err != nil || n == 0 || n > MaxPids:
		return 0, ErrPidsRange
	}
	return n, nil
}

// ErrPidsRange is a number of processes out of range.
var ErrPidsRange = fmt.Errorf("want a number of processes from 1 to %d, the most process ids Linux has", MaxPids)

// ParseCPU reads a number of CPUs' worth of time, from MinCPU to MaxCPU.
func ParseCPU(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !ValidCPU(f) {
		return 0, ErrCPURange
	}
	return f, nil
}

// ValidCPU reports whether f is a CPU limit in range (NaN is not).
func ValidCPU(f float64) bool { return f >= MinCPU && f <= MaxCPU }

// ErrCPURange is a CPU limit out of range.
var ErrCPURange = fmt.Errorf("want a number of CPUs from %g to %d, such as 0.5 or 2 (the kernel's smallest quota is 1 ms per 100 ms)", MinCPU, MaxCPU)

// ParsePublish reads [HOSTADDR:]HOSTPORT:PORT: the host listens on
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

// ParseHostPorts reads PORT or FIRST-LAST (TCP).
func ParseHostPorts(v string) (PortRange, error) {
	if strings.Contains(v, ":") {
		return PortRange{}, errors.New("want PORT or FIRST-LAST (TCP only)")
	}
	return ParsePortRange(v)
}

// ParseAddHost reads NAME=ADDR.
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

// SizeText writes a size as ParseSize reads it: in the largest unit that
// divides it (64M), else in bytes.
func SizeText(n uint64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatUint(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatUint(n, 10)
}
