package nsrun

import (
	"math"
	"net/netip"
	"time"

	"github.com/nsrun/nsrun/internal/values"
)

// The Parse functions' reading and their error texts are internal/values'.

// ParsePortRange takes PORT or FIRST-LAST, optionally after "tcp:" or "udp:"
// (TCP when not said).
func ParsePortRange(v string) (PortRange, error) {
	r, err := values.ParsePortRange(v)
	return PortRange(r), err
}

// ParseTimeout takes a Go duration ("90s", "1m30s") or whole seconds.
func ParseTimeout(v string) (time.Duration, error) { return values.ParseTimeout(v) }

// RlimitNames are the limits Rlimit may name.
var RlimitNames = []string{"nofile", "nproc", "as", "cpu", "fsize", "core", "stack", "memlock"}

// ParseRlimit takes NAME=SOFT[:HARD] as prlimit(1) does: one value sets
// both; "unlimited" is infinity.
func ParseRlimit(v string) (Rlimit, error) {
	r, err := values.ParseRlimit(v, RlimitNames)
	return Rlimit(r), err
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
func ParseSize(v string) (uint64, error) { return values.ParseSize(v) }

// ParsePids takes a number of processes (threads count) from 1 to MaxPids.
func ParsePids(v string) (uint64, error) { return values.ParsePids(v) }

// ParseCPU takes a number of CPUs' worth of time, from MinCPU to MaxCPU.
func ParseCPU(v string) (float64, error) { return values.ParseCPU(v) }

// ParsePublish takes [HOSTADDR:]HOSTPORT:PORT: the host listens on
// HOSTADDR (default 127.0.0.1; IPv6 in brackets) at HOSTPORT and carries
// each connection to PORT inside.
func ParsePublish(v string) (Publish, error) {
	p, err := values.ParsePublish(v)
	return Publish(p), err
}

// ParseHostPorts takes PORT or FIRST-LAST (TCP).
func ParseHostPorts(v string) (PortRange, error) {
	r, err := values.ParseHostPorts(v)
	return PortRange(r), err
}

// ParseAddHost takes NAME=ADDR.
func ParseAddHost(v string) (name string, addr netip.Addr, err error) { return values.ParseAddHost(v) }
