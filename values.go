package nsrun

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

// maxTimeoutSeconds is the longest timeout in whole seconds, the most a
// time.Duration holds (about 292 years).
const maxTimeoutSeconds = uint64(math.MaxInt64 / int64(time.Second))

// ParseTimeout takes a Go duration ("90s", "1m30s") or whole seconds.
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

// MaxSize is the largest size a Policy takes, 8 EiB less one byte: Linux
// counts bytes in signed 64-bit numbers (a file's size and so a tmpfs's
// use, a cgroup's memory limit), so a larger size is none it can hold to.
const MaxSize = math.MaxInt64

// MaxPids is the largest Policy.Pids: 64-bit Linux has at most 4194304
// process ids (PID_MAX_LIMIT), and pids.max takes no more.
const MaxPids = 1 << 22

// MinCPU and MaxCPU bound Policy.CPU. The kernel's smallest CPU quota is
// 1 ms per period, and nsrun's period is 100 ms; 4096 CPUs is more than a
// limit on any host needs.
const (
	MinCPU = 0.01
	MaxCPU = 4096
)

// ParseSize takes a byte count with an optional K, M, G or T suffix
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
		return 0, errSizeAbove
	case err != nil:
		return 0, errors.New("want a size such as 64M: bytes, or K, M, G or T of them (powers of 1024)")
	case n == 0:
		return 0, errors.New("want a size above zero")
	}
	return n << shift, nil
}

// errSizeAbove is a size above MaxSize.
var errSizeAbove = fmt.Errorf("is above %d bytes (8 EiB less one), the largest size Linux counts", uint64(MaxSize))

// ParsePids takes a number of processes (threads count) from 1 to MaxPids.
func ParsePids(v string) (uint64, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("want a number of processes from 1 to %d", MaxPids)
	case err != nil || n == 0 || n > MaxPids:
		return 0, errPidsRange
	}
	return n, nil
}

var errPidsRange = fmt.Errorf("want a number of processes from 1 to %d, the most process ids Linux has", MaxPids)

// ParseCPU takes a number of CPUs' worth of time, from MinCPU to MaxCPU.
func ParseCPU(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !validCPU(f) {
		return 0, errCPURange
	}
	return f, nil
}

// validCPU reports whether f is a CPU limit in range (NaN is not).
func validCPU(f float64) bool { return f >= MinCPU && f <= MaxCPU }

var errCPURange = fmt.Errorf("want a number of CPUs from %g to %d, such as 0.5 or 2 (the kernel's smallest quota is 1 ms per 100 ms)", MinCPU, MaxCPU)

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

// sizeText writes a size as ParseSize reads it: in the largest unit that
// divides it (64M), else in bytes.
func sizeText(n uint64) string {
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
