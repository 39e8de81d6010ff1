package nsrun

import win "github.com/nsrun/nsrun/windows"

// ProbeHost says whether the Windows backend can run for the calling user
// (it makes and discards a restricted token and a job object), and what
// it enforces.
func ProbeHost() Probe {
	no := ProbeItem{Detail: "not on Linux"}
	p := Probe{UserNamespaces: no, Procfs: no, Sysfs: no, MountSetattr: no, Landlock: no, Seccomp: no, CgroupV2: no, Limits: no,
		Seatbelt: ProbeItem{Detail: "not on macOS"}, LandlockOnly: ProbeLandlockOnly{Detail: no.Detail}}
	p.RestrictedToken = restrictedTokenProbe(win.CheckHost())
	return p
}

// restrictedTokenProbe is the backend's verdict on checks, with what it
// enforces and leaves open when it can run.
func restrictedTokenProbe(checks []win.Check) ProbeRestrictedToken {
	ok, detail := win.Verdict(checks)
	out := ProbeRestrictedToken{OK: ok, Detail: detail}
	if ok {
		out.Enforced, out.NotEnforced = win.Enforced, win.NotEnforced
	}
	return out
}
