package nsrun

import "os"

// ProbeHost says whether the macOS backend can run: sandbox-exec present.
func ProbeHost() Probe {
	no := ProbeItem{Detail: "not on macOS"}
	p := Probe{UserNamespaces: no, MountSetattr: no, Landlock: no, Seccomp: no, CgroupV2: no,
		LandlockOnly: ProbeLandlockOnly{Detail: no.Detail}, RestrictedToken: ProbeRestrictedToken{Detail: "not on Windows"}}
	if _, err := os.Stat(sandboxExec); err != nil {
		p.Seatbelt = ProbeItem{Detail: err.Error()}
	} else {
		p.Seatbelt = ProbeItem{OK: true, Detail: sandboxExec}
	}
	return p
}
