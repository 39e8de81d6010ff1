package nsrun

import (
	"errors"
	"strconv"
	"strings"
	"time"
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
