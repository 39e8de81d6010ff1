package main

import (
	"testing"

	"github.com/nsrun/nsrun"
)

// TestProbeStatus: nsrun probe exits 0 where this system's backend can
// run, the Windows one included.
func TestProbeStatus(t *testing.T) {
	yes := nsrun.ProbeItem{OK: true}
	linux := nsrun.Probe{UserNamespaces: yes, Procfs: yes, Sysfs: yes, MountSetattr: yes}
	noProcfs := linux
	noProcfs.Procfs = nsrun.ProbeItem{}
	for _, c := range []struct {
		name string
		p    nsrun.Probe
		want int
	}{
		{"linux", linux, 0},
		{"linux without a fresh procfs", noProcfs, 1},
		{"macos", nsrun.Probe{Seatbelt: yes}, 0},
		{"windows", nsrun.Probe{RestrictedToken: nsrun.ProbeRestrictedToken{OK: true}}, 0},
		{"nothing", nsrun.Probe{}, 1},
	} {
		if got := probeStatus(c.p); got != c.want {
			t.Errorf("%s: probeStatus = %d, want %d", c.name, got, c.want)
		}
	}
}
