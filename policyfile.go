package nsrun

import (
	"time"

	"github.com/nsrun/nsrun/internal/policyfile"
)

// PolicyFile is a policy file: a Policy, a preset to start from, and the
// process settings the command line can also give.
type PolicyFile struct {
	Policy   Policy // "unset_env" and "keep_env" are its UnsetEnv and KeepEnv
	Preset   string
	Dir      string
	Env      []string // KEY=VALUE, in order
	ClearEnv bool
	Timeout  time.Duration
	// KillAfter is the grace between the timeout's SIGTERM and SIGKILL.
	KillAfter time.Duration
	// Set are the settings the file gives, by the name of the flag that
	// also gives them ("net", "allow-userns"), so a file can set a value
	// back to its default over a preset.
	Set map[string]bool
}

var (
	accessByName = map[string]Access{"rw": ReadWrite, "ro": ReadOnly, "deny": Deny, "tmpfs": Tmpfs, "overlay": Overlay,
		"dir": Directory, "symlink": Symlink, "file": Copy, "dev": Device, "dev-block": BlockDevice}
	sourceByName = map[string]Source{"": SourceBaseline, "baseline": SourceBaseline, "user": SourceUser, "mandatory": SourceMandatory}
)

// ParsePolicyFile reads a policy file. Relative paths in it are taken from
// dir, the file's directory. Unknown fields and values are errors.
func ParsePolicyFile(data []byte, dir string) (*PolicyFile, error) {
	// internal/policyfile reads and checks it; what it returns maps onto
	// the Policy without a further check.
	f, err := policyfile.Parse(data, dir)
	if err != nil {
		return nil, err
	}
	j := &f.Schema
	pf := &PolicyFile{Preset: j.Preset, Dir: j.Chdir, Env: j.Env, ClearEnv: j.ClearEnv, Timeout: f.Timeout, KillAfter: f.KillAfter, Set: f.Set}
	p := &pf.Policy
	p.Root, p.Hostname, p.UID, p.GID, p.AllowUserns, p.Strict, p.Seccomp = j.Root, j.Hostname, j.UID, j.GID, j.AllowUserns, j.Strict, j.Seccomp
	p.UnsetEnv, p.KeepEnv, p.ProtectGit, p.TraceDenials = j.UnsetEnv, j.KeepEnv, j.ProtectGit, j.TraceDenials
	p.AllowHostUnixSockets, p.KeepChanges = j.AllowHostUnixSockets, j.KeepChanges
	switch j.Home {
	case "":
	case "private":
		p.Home = HomePrivate
	case "persistent":
		p.Home = HomePersistent
	default:
		p.Home, p.HomeDir = HomePersistent, j.Home
	}
	for _, r := range j.Rules {
		p.Rules = append(p.Rules, Rule{Path: r.Path, Access: accessByName[r.Access], Source: sourceByName[r.Source], From: r.From})
	}
	p.Net = map[string]Net{"": NetNone, "none": NetNone, "host": NetHost}[j.Net]
	p.Isolation = map[string]Isolation{"": IsolationFull, "full": IsolationFull, "landlock": IsolationLandlock}[j.Isolation]
	p.Proc = map[string]ProcMode{"": ProcPrivate, "private": ProcPrivate, "host": ProcHost}[j.Proc]
	p.Sys = map[string]SysMode{"": SysPrivate, "private": SysPrivate, "host": SysHost}[j.Sys]
	p.Landlock = map[string]LandlockMode{"": LandlockAuto, "auto": LandlockAuto, "off": LandlockOff}[j.Landlock]
	for _, r := range f.AllowConnect {
		p.AllowConnect = append(p.AllowConnect, PortRange(r))
	}
	for _, r := range f.AllowBind {
		p.AllowBind = append(p.AllowBind, PortRange(r))
	}
	for _, pb := range f.Publish {
		p.Publish = append(p.Publish, Publish(pb))
	}
	for _, r := range f.HostPorts {
		p.HostPorts = append(p.HostPorts, PortRange(r))
	}
	p.AllowHosts, p.AddHosts, p.AllowPrivateHosts = j.AllowHosts, j.AddHosts, j.AllowPrivate
	return pf, nil
}
