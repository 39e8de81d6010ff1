//go:build !linux && !darwin && !windows

package nsrun

// ProbeHost reports that this system has no backend yet.
func ProbeHost() Probe {
	no := ProbeItem{Detail: ErrUnsupported.Error()}
	return Probe{UserNamespaces: no, MountSetattr: no, Landlock: no, Seccomp: no, CgroupV2: no, Seatbelt: no,
		LandlockOnly: ProbeLandlockOnly{Detail: no.Detail}, RestrictedToken: ProbeRestrictedToken{Detail: no.Detail}}
}
