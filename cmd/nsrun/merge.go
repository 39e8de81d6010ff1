package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/netproxy"
)

// merged is the policy and process settings from a preset, a policy file
// and the flags, in that order of strength.
type merged struct {
	policy    *nsrun.Policy
	dir       string
	env       []string
	envOps    []envOp // in the order they apply, for policy show
	preset    string
	timeout   time.Duration
	killAfter time.Duration // the grace between the timeout's SIGTERM and SIGKILL
}

// merge builds what the command line asks for: the preset (from the flag
// or the file) first, then the file, then the flags, which are the user
// source and override the scalars they set. The environment is edited in
// the same order: the preset's patterns, the file's (clear_env, unset_env,
// keep_env, env), then the flags in command-line order.
func merge(o *options, environ []string) (*merged, error) {
	m := &merged{policy: &nsrun.Policy{}}
	var pf *nsrun.PolicyFile
	if o.policyFile != "" {
		data, err := os.ReadFile(o.policyFile)
		if err != nil {
			return nil, usagef("--policy %s: %v", o.policyFile, err)
		}
		dir, _ := filepath.Abs(filepath.Dir(o.policyFile))
		if pf, err = nsrun.ParsePolicyFile(data, dir); err != nil {
			return nil, usagef("--policy %s: %v", o.policyFile, err)
		}
	}
	preset := o.preset
	if pf != nil && pf.Preset != "" {
		if preset != "" && preset != pf.Preset {
			return nil, usagef("--preset %s: the policy file %s starts from preset %s; give one", preset, o.policyFile, pf.Preset)
		}
		preset = pf.Preset
	}
	m.preset = preset
	if preset != "" {
		ws, err := os.Getwd()
		if err == nil {
			ws, err = filepath.EvalSymlinks(ws)
		}
		if err != nil {
			return nil, usagef("--preset %s: current directory: %v", preset, err)
		}
		homes := nsrun.Homes()
		if err := nsrun.CheckWorkspace(ws, homes); err != nil && namesWritable(o, pf) {
			// The user names what is writable: the current directory is
			// not made so.
			ws = ""
		}
		if m.policy, err = nsrun.Preset(preset, ws, homes...); err != nil {
			return nil, usagef("--preset %s: %v", preset, err)
		}
	}
	ops := envOps(m.policy)
	for i := range ops {
		ops[i].guess = ops[i].kind == envUnset
	}
	m.policy.UnsetEnv, m.policy.KeepEnv = nil, nil
	if preset == "agent" || preset == "build" {
		// Their HOME is nsrun's, whose module cache starts empty: the go
		// command reads the host's first (the host root is readable
		// already; this only points go at it).
		if op := hostGoProxy(lookup(environ)); op != nil {
			ops = append(ops, *op)
		}
	}
	if pf != nil {
		overlay(m.policy, &pf.Policy, pf.Set)
		m.dir, m.timeout, m.killAfter = pf.Dir, pf.Timeout, pf.KillAfter
	}
	overlay(m.policy, &o.policy, o.set)
	// Under the agent preset, with no network, programs meet nsrun's
	// refusing proxy and DNS, which answer at once and say why, instead of
	// nothing at all. A plain run does without them: they cost every
	// launch a proxy, a resolver and the /etc files pointing at them.
	m.policy.RefuseNetwork = preset == "agent"
	// A shell's start-up that regenerates a version manager's shims in
	// the read-only HOME says nothing (nsrun.Policy.ShimLayers).
	m.policy.ShimLayers = true
	refuses := m.policy.RefusesNetwork()
	env := environ
	if filtered(m.policy) || refuses {
		// The host's proxies are out of the sandbox's reach: nsrun points
		// the variables at its own, unless the file or a flag sets them.
		env = withoutProxyVariables(env)
	}
	if pf != nil {
		if pf.ClearEnv {
			ops = append(ops, envOp{kind: envClear})
		}
		ops = append(ops, envOps(&pf.Policy)...)
		for _, kv := range pf.Env {
			k, v, ok := splitEnv(kv)
			if !ok || k == "" {
				return nil, usagef("--policy %s: env %q: want KEY=VALUE", o.policyFile, kv)
			}
			ops = append(ops, envOp{kind: envSet, key: k, value: v})
		}
	}
	if o.set["chdir"] {
		m.dir = o.dir
	}
	if o.set["timeout"] {
		m.timeout = o.timeout
	}
	if o.set["kill-after"] {
		m.killAfter = o.killAfter
	}
	if m.killAfter > 0 && m.timeout == 0 {
		return nil, usagef("--kill-after %s needs --timeout: it is the time between the timeout's SIGTERM and its SIGKILL", m.killAfter)
	}
	var unset, keep []string
	m.envOps = append(ops, o.envOps...)
	m.env, unset, keep = environment(env, m.envOps)
	if refuses && !clears(m.envOps) {
		m.env = withRefuserProxy(m.env)
	}
	for _, k := range unset {
		if l := literal(k); l != "" {
			m.policy.UnsetEnv = append(m.policy.UnsetEnv, l)
		}
	}
	for _, k := range keep {
		if l := literal(k); l != "" {
			m.policy.KeepEnv = append(m.policy.KeepEnv, l)
		}
	}
	return m, nil
}

// namesWritable reports whether the flags or the file give a writable
// rule: then a preset does not need the current directory.
func namesWritable(o *options, pf *nsrun.PolicyFile) bool {
	rules := o.policy.Rules
	if pf != nil {
		rules = append(append([]nsrun.Rule{}, rules...), pf.Policy.Rules...)
	}
	for _, r := range rules {
		if r.Access == nsrun.ReadWrite {
			return true
		}
	}
	return false
}

// overlay lays top over base: rules and ports are added; scalars replace
// base's where set says top gives them.
func overlay(base, top *nsrun.Policy, set map[string]bool) {
	base.Rules = append(base.Rules, top.Rules...)
	base.AllowConnect = append(base.AllowConnect, top.AllowConnect...)
	base.AllowBind = append(base.AllowBind, top.AllowBind...)
	base.Rlimits = append(base.Rlimits, top.Rlimits...)
	base.AllowHosts = append(base.AllowHosts, top.AllowHosts...)
	base.AddHosts = append(base.AddHosts, top.AddHosts...)
	base.Publish = append(base.Publish, top.Publish...)
	base.HostPorts = append(base.HostPorts, top.HostPorts...)
	if set["allow-private-hosts"] {
		base.AllowPrivateHosts = top.AllowPrivateHosts
	}
	if set["tmpfs-size"] {
		base.TmpfsSize = top.TmpfsSize
	}
	if set["memory"] {
		base.Memory = top.Memory
	}
	if set["pids"] {
		base.Pids = top.Pids
	}
	if set["cpu"] {
		base.CPU = top.CPU
	}
	if set["root"] {
		base.Root = top.Root
	}
	if set["hostname"] {
		base.Hostname = top.Hostname
	}
	if set["uid"] {
		base.UID = top.UID
	}
	if set["gid"] {
		base.GID = top.GID
	}
	if set["net"] {
		base.Net = top.Net
	}
	if set["isolation"] {
		base.Isolation = top.Isolation
	}
	if set["landlock"] {
		base.Landlock = top.Landlock
	}
	if set["proc"] {
		base.Proc = top.Proc
	}
	if set["sys"] {
		base.Sys = top.Sys
	}
	if set["seccomp"] {
		base.Seccomp = top.Seccomp
	}
	if set["allow-userns"] {
		base.AllowUserns = top.AllowUserns
	}
	if set["allow-host-unix-sockets"] {
		base.AllowHostUnixSockets = top.AllowHostUnixSockets
	}
	if set["strict"] {
		base.Strict = top.Strict
	}
	if set["keep-changes"] {
		base.KeepChanges = top.KeepChanges
	}
	if set["home"] {
		base.Home = top.Home
		if top.HomeDir != "" {
			base.HomeDir = top.HomeDir
		}
	}
	if set["protect-git"] {
		base.ProtectGit = top.ProtectGit
	}
	if set["trace-denials"] {
		base.TraceDenials = top.TraceDenials
	}
}

// filtered reports whether p asks for the filtered network.
func filtered(p *nsrun.Policy) bool {
	return len(p.AllowHosts)+len(p.Publish)+len(p.HostPorts) > 0
}

// lookup is getenv over environ (the last value counts).
func lookup(environ []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, kv := range environ {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val
			}
		}
		return v
	}
}

// clears reports whether ops clear the environment: the user then names
// every variable, and nsrun adds none of its advice.
func clears(ops []envOp) bool {
	for _, op := range ops {
		if op.kind == envClear {
			return true
		}
	}
	return false
}

// withRefuserProxy points the proxy variables env does not set at nsrun's
// refusing proxy (nsrun.Policy.RefuseNetwork), so that programs that use
// one are refused at once, with a reason.
func withRefuserProxy(env []string) []string {
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	proxy := netproxy.ProxyAddr.String()
	values := map[string]string{"http_proxy": "http://" + proxy, "https_proxy": "http://" + proxy,
		"all_proxy": "socks5h://" + proxy, "no_proxy": "localhost,127.0.0.1,::1"}
	out := append([]string(nil), env...)
	for _, k := range []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"} {
		if !set[k] {
			out = append(out, k+"="+values[strings.ToLower(k)])
		}
	}
	return out
}

// withoutProxyVariables drops the variables that name proxies.
func withoutProxyVariables(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(k) {
		case "http_proxy", "https_proxy", "all_proxy", "no_proxy":
			continue
		}
		out = append(out, kv)
	}
	return out
}
