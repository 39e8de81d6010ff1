package nsrun

import (
	"errors"
	"fmt"
	"os"

	"github.com/nsrun/nsrun/darwin"
	"github.com/nsrun/nsrun/internal/errs"
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
func (p *Policy) seatbeltCheck() error { return p.linuxOnly("the macOS Seatbelt backend") }

// linuxOnly refuses the first setting in use that only the Linux backend
// can honour, saying that it has no meaning with backend.
func (p *Policy) linuxOnly(backend string) error {
	if s := p.linuxOnlySetting(); s != "" {
		return &SetupError{Code: ExitSetup, Err: errs.New("%s has no meaning with %s", s, backend)}
	}
	for _, r := range p.Rules {
		if r.From != "" || (r.Access != ReadOnly && r.Access != ReadWrite && r.Access != Deny && r.Access != Tmpfs) {
			// Another place, a device, a copy, an overlay: mounts.
			return &RuleError{Rule: r, Err: fmt.Errorf("has no meaning with %s", backend)}
		}
	}
	return nil
}

// linuxOnlySetting names the first setting in use, but the rules, that
// only the Linux backend can honour, or is "".
func (p *Policy) linuxOnlySetting() errs.Setting {
	switch {
	case p.UID != nil || p.GID != nil:
		return errs.UIDGID
	case p.Hostname != "":
		return errs.Hostname
	case p.Isolation != IsolationFull:
		return errs.IsolationLandlock
	case p.Root != "":
		return errs.Root
	case p.AllowUserns:
		return errs.AllowUserns
	case p.TraceDenials:
		return errs.TraceDenials
	case p.AllowHostUnixSockets:
		return errs.AllowHostUnixSockets
	case len(p.AllowConnect)+len(p.AllowBind) > 0:
		return errs.PortRules
	case p.filtersNetwork() || p.AllowPrivateHosts || len(p.AddHosts) > 0 || p.Dial != nil || p.Resolve != nil:
		return errs.FilteredNetwork
	case p.Seccomp != "" && p.Seccomp != "default" && p.Seccomp != "off":
		return errs.SeccompProfile
	case p.Home != HomeInherit:
		return errs.HomeOwn
	case p.ProtectGit:
		return errs.ProtectGit
	case len(p.UnsetEnv)+len(p.KeepEnv) > 0:
		return errs.EnvPatterns
	case p.Memory > 0 || p.Pids > 0 || p.CPU > 0 || len(p.Rlimits) > 0 || p.TmpfsSize > 0:
		return errs.ResourceLimits
	case p.KeepChanges != "":
		return errs.KeepChanges
	case p.Sys != SysPrivate:
		return errs.SysHost
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
