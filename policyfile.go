package nsrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nsrun/nsrun/netproxy"
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

// policyJSON is the file's schema, version 1. Rules default to the
// baseline source: a file is where an operator's starting point lives, and
// flags (the user) apply on top.
type policyJSON struct {
	Version              int        `json:"version"`
	Preset               string     `json:"preset,omitempty"`
	Root                 string     `json:"root,omitempty"`
	Rules                []ruleJSON `json:"rules,omitempty"`
	Net                  string     `json:"net,omitempty"`
	AllowConnect         []string   `json:"allow_connect,omitempty"`
	AllowBind            []string   `json:"allow_bind,omitempty"`
	AllowHosts           []string   `json:"allow_hosts,omitempty"`
	AllowPrivate         bool       `json:"allow_private_hosts,omitempty"`
	AddHosts             []string   `json:"add_hosts,omitempty"`
	Publish              []string   `json:"publish,omitempty"`
	HostPorts            []string   `json:"host_ports,omitempty"`
	Hostname             string     `json:"hostname,omitempty"`
	UID                  *int       `json:"uid,omitempty"`
	GID                  *int       `json:"gid,omitempty"`
	Isolation            string     `json:"isolation,omitempty"`
	Proc                 string     `json:"proc,omitempty"`
	Sys                  string     `json:"sys,omitempty"`
	Landlock             string     `json:"landlock,omitempty"`
	Seccomp              string     `json:"seccomp,omitempty"`
	AllowUserns          bool       `json:"allow_userns,omitempty"`
	AllowHostUnixSockets bool       `json:"allow_host_unix_sockets,omitempty"`
	Strict               bool       `json:"strict,omitempty"`
	Chdir                string     `json:"chdir,omitempty"`
	Env                  []string   `json:"env,omitempty"`
	UnsetEnv             []string   `json:"unset_env,omitempty"`
	KeepEnv              []string   `json:"keep_env,omitempty"`
	ClearEnv             bool       `json:"clear_env,omitempty"`
	Timeout              string     `json:"timeout,omitempty"`
	KillAfter            string     `json:"kill_after,omitempty"`
	Home                 string     `json:"home,omitempty"`
	KeepChanges          string     `json:"keep_changes,omitempty"`
	ProtectGit           bool       `json:"protect_git,omitempty"`
	TraceDenials         bool       `json:"trace_denials,omitempty"`
}

// ruleJSON is a rule. With "from" (a host path, or a symlink's target),
// and for "dir" and "symlink", "path" is the place inside, absolute.
type ruleJSON struct {
	Path   string `json:"path"`
	Access string `json:"access"`
	From   string `json:"from,omitempty"`
	Source string `json:"source,omitempty"`
}

var (
	accessByName = map[string]Access{"rw": ReadWrite, "ro": ReadOnly, "deny": Deny, "tmpfs": Tmpfs, "overlay": Overlay,
		"dir": Directory, "symlink": Symlink, "file": Copy, "dev": Device, "dev-block": BlockDevice}
	sourceByName = map[string]Source{"": SourceBaseline, "baseline": SourceBaseline, "user": SourceUser, "mandatory": SourceMandatory}
)

// ParsePolicyFile reads a policy file. Relative paths in it are taken from
// dir, the file's directory. Unknown fields and values are errors.
func ParsePolicyFile(data []byte, dir string) (*PolicyFile, error) {
	var j policyJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, err
	}
	if j.Version != 1 {
		return nil, fmt.Errorf("version %d: this nsrun reads version 1", j.Version)
	}
	pf := &PolicyFile{Preset: j.Preset, Env: j.Env, ClearEnv: j.ClearEnv, Set: map[string]bool{}}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, err
	}
	for k := range keys {
		pf.Set[strings.ReplaceAll(k, "_", "-")] = true
	}
	p := &pf.Policy
	p.Hostname, p.UID, p.GID, p.AllowUserns, p.Strict, p.Seccomp = j.Hostname, j.UID, j.GID, j.AllowUserns, j.Strict, j.Seccomp
	p.UnsetEnv, p.KeepEnv, p.ProtectGit = j.UnsetEnv, j.KeepEnv, j.ProtectGit
	p.TraceDenials = j.TraceDenials
	for _, list := range []struct {
		name string
		v    []string
	}{{"unset_env", j.UnsetEnv}, {"keep_env", j.KeepEnv}} {
		for _, pat := range list.v {
			if err := CheckEnvPattern(pat); err != nil {
				return nil, fmt.Errorf("%s %q: %v", list.name, pat, err)
			}
		}
	}
	p.AllowHostUnixSockets = j.AllowHostUnixSockets
	abs := func(path string) string {
		if path == "" || filepath.IsAbs(path) {
			return path
		}
		return filepath.Join(dir, path)
	}
	p.Root, pf.Dir, p.KeepChanges = abs(j.Root), abs(j.Chdir), abs(j.KeepChanges)
	switch j.Home {
	case "":
	case "private":
		p.Home = HomePrivate
	case "persistent":
		p.Home = HomePersistent
	default:
		p.Home, p.HomeDir = HomePersistent, abs(j.Home)
	}
	if j.Seccomp != "" && j.Seccomp != "default" && j.Seccomp != "off" {
		p.Seccomp = abs(j.Seccomp)
	}
	for i, r := range j.Rules {
		a, ok := accessByName[r.Access]
		if !ok {
			return nil, fmt.Errorf("rules[%d].access %q: want rw, ro, deny, tmpfs, overlay, dir, symlink, file, dev or dev-block", i, r.Access)
		}
		s, ok := sourceByName[r.Source]
		if !ok {
			return nil, fmt.Errorf("rules[%d].source %q: want baseline, user or mandatory", i, r.Source)
		}
		if r.Path == "" {
			return nil, fmt.Errorf("rules[%d].path: empty", i)
		}
		rule := Rule{Path: abs(r.Path), Access: a, Source: s, From: abs(r.From)}
		if r.From != "" || a == Directory || a == Symlink {
			// A place inside: never taken from the file's directory.
			rule.Path = r.Path
		}
		if a == Symlink {
			rule.From = r.From // the target, as it is
		}
		p.Rules = append(p.Rules, rule)
	}
	var err error
	if p.Net, err = pick("net", j.Net, map[string]Net{"": NetNone, "none": NetNone, "host": NetHost}); err != nil {
		return nil, err
	}
	if p.Isolation, err = pick("isolation", j.Isolation, map[string]Isolation{"": IsolationFull, "full": IsolationFull, "landlock": IsolationLandlock}); err != nil {
		return nil, err
	}
	if p.Proc, err = pick("proc", j.Proc, map[string]ProcMode{"": ProcPrivate, "private": ProcPrivate, "host": ProcHost}); err != nil {
		return nil, err
	}
	if p.Sys, err = pick("sys", j.Sys, map[string]SysMode{"": SysPrivate, "private": SysPrivate, "host": SysHost}); err != nil {
		return nil, err
	}
	if p.Landlock, err = pick("landlock", j.Landlock, map[string]LandlockMode{"": LandlockAuto, "auto": LandlockAuto, "off": LandlockOff}); err != nil {
		return nil, err
	}
	for _, list := range []struct {
		name string
		in   []string
		out  *[]PortRange
	}{{"allow_connect", j.AllowConnect, &p.AllowConnect}, {"allow_bind", j.AllowBind, &p.AllowBind}} {
		for _, v := range list.in {
			r, err := ParsePortRange(v)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", list.name, v, err)
			}
			*list.out = append(*list.out, r)
		}
	}
	for _, h := range j.AllowHosts {
		if _, err := netproxy.ParseRule(h); err != nil {
			return nil, fmt.Errorf("allow_hosts %q: %w", h, err)
		}
	}
	for _, h := range j.AddHosts {
		if _, _, err := ParseAddHost(h); err != nil {
			return nil, fmt.Errorf("add_hosts %q: %w", h, err)
		}
	}
	p.AllowHosts, p.AddHosts, p.AllowPrivateHosts = j.AllowHosts, j.AddHosts, j.AllowPrivate
	for _, v := range j.Publish {
		pb, err := ParsePublish(v)
		if err != nil {
			return nil, fmt.Errorf("publish %q: %w", v, err)
		}
		p.Publish = append(p.Publish, pb)
	}
	for _, v := range j.HostPorts {
		r, err := ParseHostPorts(v)
		if err != nil {
			return nil, fmt.Errorf("host_ports %q: %w", v, err)
		}
		p.HostPorts = append(p.HostPorts, r)
	}
	if j.Timeout != "" {
		if pf.Timeout, err = ParseTimeout(j.Timeout); err != nil {
			return nil, fmt.Errorf("timeout %q: %w", j.Timeout, err)
		}
	}
	if j.KillAfter != "" {
		if pf.KillAfter, err = ParseTimeout(j.KillAfter); err != nil {
			return nil, fmt.Errorf("kill_after %q: %w", j.KillAfter, err)
		}
	}
	return pf, nil
}

func pick[T any](field, v string, choices map[string]T) (T, error) {
	c, ok := choices[v]
	if !ok {
		var zero T
		return zero, fmt.Errorf("%s %q: not one of the known values", field, v)
	}
	return c, nil
}
