package nsrun

import (
	"errors"
	"os"

	"github.com/nsrun/nsrun/darwin"
)

// SeatbeltProfile is the macOS Seatbelt profile of p, what the macOS
// backend applies; nsrun --print-profile shows it on every system. Policy
// settings Seatbelt cannot honour are errors.
func (p *Policy) SeatbeltProfile() (darwin.Profile, error) {
	if err := p.seatbeltCheck(); err != nil {
		return darwin.Profile{}, err
	}
	e, err := p.effect(false)
	if err != nil {
		return darwin.Profile{}, err
	}
	in := darwin.Input{ReadRoots: []string{e.Root}, HostNet: p.Net == NetHost, TempDirs: seatbeltTempDirs()}
	for _, r := range e.Rules {
		a, ok := map[Access]darwin.Access{ReadWrite: darwin.ReadWrite, ReadOnly: darwin.ReadOnly, Deny: darwin.Deny}[r.Access]
		if !ok {
			return darwin.Profile{}, &RuleError{Rule: r, Err: errors.New("a fresh tmpfs needs mounts, which Seatbelt does not have")}
		}
		in.Rules = append(in.Rules, darwin.Rule{Path: r.Path, Access: a})
	}
	return darwin.Generate(in), nil
}

// seatbeltCheck refuses settings that mean nothing under Seatbelt: they
// would be ignored otherwise.
func (p *Policy) seatbeltCheck() error {
	if setting := p.linuxOnlySetting(); setting != "" {
		return &SetupError{Code: ExitSetup, Msg: setting + " has no meaning with the macOS Seatbelt backend"}
	}
	return nil
}

// linuxOnlySetting names the first setting in use that only the Linux
// backend can honour, or returns "".
func (p *Policy) linuxOnlySetting() string {
	switch {
	case p.UID != nil || p.GID != nil:
		return "uid and gid"
	case p.Hostname != "":
		return "hostname"
	case p.Isolation != IsolationFull:
		return "isolation landlock"
	case p.Root != "":
		return "root"
	case p.AllowUserns:
		return "allow-userns"
	case p.TraceDenials:
		return "trace-denials"
	case p.AllowHostUnixSockets:
		return "allow-host-unix-sockets"
	case len(p.AllowConnect)+len(p.AllowBind) > 0:
		return "port rules (allow-connect, allow-bind)"
	case p.filtersNetwork() || p.AllowPrivateHosts || len(p.AddHosts) > 0 || p.Dial != nil || p.Resolve != nil:
		return "a filtered network (allow-host, publish, host-port)"
	case p.Seccomp != "" && p.Seccomp != "default" && p.Seccomp != "off":
		return "a seccomp profile"
	case p.Home != HomeInherit:
		return "a home of the sandbox's own (presets agent and build)"
	case p.ProtectGit:
		return "git protection (preset agent)"
	case len(p.UnsetEnv)+len(p.KeepEnv) > 0:
		return "environment patterns (preset agent)"
	case p.Memory > 0 || p.Pids > 0 || p.CPU > 0 || len(p.Rlimits) > 0 || p.TmpfsSize > 0:
		return "resource limits"
	case p.KeepChanges != "":
		return "keep-changes"
	case p.Sys != SysPrivate:
		return "sys"
	}
	for _, r := range p.Rules {
		if r.From != "" || (r.Access != ReadOnly && r.Access != ReadWrite && r.Access != Deny && r.Access != Tmpfs) {
			// Another place, a device, a copy, an overlay: mounts.
			return "--" + r.Option() + " " + r.Path
		}
	}
	return ""
}

// seatbeltTempDirs are the temporary directories a macOS process writes:
// its per-user one ($TMPDIR, under /private/var/folders) and /private/tmp.
func seatbeltTempDirs() []string {
	dirs := []string{"/private/tmp"}
	if t := os.Getenv("TMPDIR"); t != "" {
		dirs = append(dirs, darwin.RealPath(t))
	}
	return dirs
}
