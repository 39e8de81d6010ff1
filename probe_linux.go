package nsrun

import (
	"errors"
	"fmt"

	"github.com/moby/sys/userns"
	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/seccomp"
)

// ProbeHost finds out what this host can enforce for the calling user. It
// creates one throwaway set of namespaces to be sure.
func ProbeHost() Probe {
	var p Probe
	u, proc, sys := sandbox.ProbeUserns()
	p.UserNamespaces, p.Procfs, p.Sysfs = ProbeItem(u), ProbeItem(proc), ProbeItem(sys)
	p.Nested = userns.RunningInUserNS()
	if err := unix.MountSetattr(-1, "", 0, &unix.MountAttr{}); errors.Is(err, unix.ENOSYS) {
		p.MountSetattr = ProbeItem{Detail: "mount_setattr: not in this kernel (needs 5.12)"}
	} else {
		p.MountSetattr = ProbeItem{OK: true, Detail: "recursive read-only binds in one call"}
	}
	if abi, errata, err := landlock.ABI(); err != nil {
		p.Landlock = ProbeItem{Detail: err.Error()}
	} else {
		p.Landlock, p.LandlockABI = ProbeItem{OK: true, Detail: fmt.Sprintf("ABI %d, errata %#x", abi, errata)}, abi
	}
	p.Seccomp = probeItem(seccomp.Probe(), "filters available")
	p.CgroupV2, p.CgroupV2Path = probeCgroup2()
	limits, via := sandbox.ProbeLimits()
	p.Limits, p.LimitsCgroup = ProbeItem(limits), via
	p.Seatbelt = ProbeItem{Detail: "not on macOS"}
	p.RestrictedToken = ProbeRestrictedToken{Detail: "not on Windows"}
	p.LandlockOnly = ProbeLandlockOnly(plan.ProbeLandlockOnly(p.LandlockABI, plan.PidfdGetfdAllowed))
	return p
}

// probeItem is the probe's answer for a mechanism that says what is
// missing with err.
func probeItem(err error, ok string) ProbeItem {
	if err != nil {
		return ProbeItem{Detail: err.Error()}
	}
	return ProbeItem{OK: true, Detail: ok}
}

func probeCgroup2() (ProbeItem, string) {
	mnt, dir, err := cgroup.ProbeV2()
	return probeItem(err, "memory, pids and cpu controllers under "+dir), mnt
}
