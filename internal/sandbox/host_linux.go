package sandbox

import (
	"errors"
	"fmt"

	"github.com/moby/sys/userns"
	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/seccomp"
)

// Host is what this host can enforce for the calling user, as the root
// package's Probe says it, field for field; what a Landlock-only sandbox
// can enforce is internal/plan's to say, from LandlockABI.
type Host struct {
	UserNamespaces ProbeItem
	Nested         bool // already in a user namespace other than the host's
	Procfs, Sysfs  ProbeItem
	MountSetattr   ProbeItem
	Landlock       ProbeItem
	LandlockABI    int
	Seccomp        ProbeItem
	CgroupV2       ProbeItem
	CgroupV2Path   string
	Limits         ProbeItem
	LimitsCgroup   map[string]string
}

// ProbeHost finds out what this host can enforce for the calling user. It
// creates one throwaway set of namespaces to be sure.
func ProbeHost() Host {
	var h Host
	h.UserNamespaces, h.Procfs, h.Sysfs = ProbeUserns()
	h.Nested = userns.RunningInUserNS()
	if err := unix.MountSetattr(-1, "", 0, &unix.MountAttr{}); errors.Is(err, unix.ENOSYS) {
		h.MountSetattr = ProbeItem{Detail: "mount_setattr: not in this kernel (needs 5.12)"}
	} else {
		h.MountSetattr = ProbeItem{OK: true, Detail: "recursive read-only binds in one call"}
	}
	if abi, errata, err := landlock.ABI(); err != nil {
		h.Landlock = ProbeItem{Detail: err.Error()}
	} else {
		h.Landlock, h.LandlockABI = ProbeItem{OK: true, Detail: fmt.Sprintf("ABI %d, errata %#x", abi, errata)}, abi
	}
	h.Seccomp = probeItem(seccomp.Probe(), "filters available")
	mnt, dir, err := cgroup.ProbeV2()
	h.CgroupV2, h.CgroupV2Path = probeItem(err, "memory, pids and cpu controllers under "+dir), mnt
	h.Limits, h.LimitsCgroup = ProbeLimits()
	return h
}

// probeItem is the probe's answer for a mechanism that says what is
// missing with err.
func probeItem(err error, ok string) ProbeItem {
	if err != nil {
		return ProbeItem{Detail: err.Error()}
	}
	return ProbeItem{OK: true, Detail: ok}
}
