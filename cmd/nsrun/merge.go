package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/nsrun/nsrun"
)

// merged is the policy and process settings from a preset, a policy file
// and the flags, in that order of strength.
type merged struct {
	policy  *nsrun.Policy
	dir     string
	env     []string
	timeout time.Duration
}

// merge builds what the command line asks for: the preset (from the flag
// or the file) first, then the file, then the flags, which are the user
// source and override the scalars they set.
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
	if preset == "" && pf != nil {
		preset = pf.Preset
	}
	if preset != "" {
		ws, err := os.Getwd()
		if err == nil {
			ws, err = filepath.EvalSymlinks(ws)
		}
		if err != nil {
			return nil, usagef("--preset %s: current directory: %v", preset, err)
		}
		home, _ := os.UserHomeDir()
		if m.policy, err = nsrun.Preset(preset, ws, home); err != nil {
			return nil, usagef("--preset: %v", err)
		}
	}
	env := environ
	if pf != nil {
		overlay(m.policy, &pf.Policy, pf.Set)
		m.dir, m.timeout = pf.Dir, pf.Timeout
		if pf.ClearEnv {
			env = nil
		}
		var ops []envOp
		for _, k := range pf.UnsetEnv {
			ops = append(ops, envOp{key: k, unset: true})
		}
		for _, kv := range pf.Env {
			k, v, ok := splitEnv(kv)
			if !ok || k == "" {
				return nil, usagef("--policy %s: env %q: want KEY=VALUE", o.policyFile, kv)
			}
			ops = append(ops, envOp{key: k, value: v})
		}
		env = buildEnv(env, false, ops)
	}
	overlay(m.policy, &o.policy, o.set)
	if o.set["chdir"] {
		m.dir = o.dir
	}
	if o.set["timeout"] {
		m.timeout = o.timeout
	}
	m.env = buildEnv(env, o.clearEnv, o.envOps)
	return m, nil
}

// overlay lays top over base: rules and ports are added; scalars replace
// base's where set says top gives them.
func overlay(base, top *nsrun.Policy, set map[string]bool) {
	base.Rules = append(base.Rules, top.Rules...)
	base.AllowConnect = append(base.AllowConnect, top.AllowConnect...)
	base.AllowBind = append(base.AllowBind, top.AllowBind...)
	base.Rlimits = append(base.Rlimits, top.Rlimits...)
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
	base.PrivateHome = base.PrivateHome || top.PrivateHome
}
