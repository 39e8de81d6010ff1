// Package policyfile reads a policy file, version 1 of its JSON schema,
// into plain values: every field known, every value checked, relative
// paths taken from the file's directory, in the order the root package's
// ParsePolicyFile reports the first error and with its words. What it
// returns is valid: the root maps its names onto its own types without a
// further check. It works on every OS and imports of nsrun only
// internal/values, internal/environ and netproxy, whose rules the values
// obey.
package policyfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/values"
	"github.com/nsrun/nsrun/netproxy"
)

// Schema is the file's schema, version 1. Rules default to the baseline
// source: a file is where an operator's starting point lives, and flags
// (the user) apply on top.
type Schema struct {
	Version              int      `json:"version"`
	Preset               string   `json:"preset,omitempty"`
	Root                 string   `json:"root,omitempty"`
	Rules                []Rule   `json:"rules,omitempty"`
	Net                  string   `json:"net,omitempty"`
	AllowConnect         []string `json:"allow_connect,omitempty"`
	AllowBind            []string `json:"allow_bind,omitempty"`
	AllowHosts           []string `json:"allow_hosts,omitempty"`
	AllowPrivate         bool     `json:"allow_private_hosts,omitempty"`
	AddHosts             []string `json:"add_hosts,omitempty"`
	Publish              []string `json:"publish,omitempty"`
	HostPorts            []string `json:"host_ports,omitempty"`
	Hostname             string   `json:"hostname,omitempty"`
	UID                  *int     `json:"uid,omitempty"`
	GID                  *int     `json:"gid,omitempty"`
	Isolation            string   `json:"isolation,omitempty"`
	Proc                 string   `json:"proc,omitempty"`
	Sys                  string   `json:"sys,omitempty"`
	Landlock             string   `json:"landlock,omitempty"`
	Seccomp              string   `json:"seccomp,omitempty"`
	AllowUserns          bool     `json:"allow_userns,omitempty"`
	AllowHostUnixSockets bool     `json:"allow_host_unix_sockets,omitempty"`
	Strict               bool     `json:"strict,omitempty"`
	Chdir                string   `json:"chdir,omitempty"`
	Env                  []string `json:"env,omitempty"`
	UnsetEnv             []string `json:"unset_env,omitempty"`
	KeepEnv              []string `json:"keep_env,omitempty"`
	ClearEnv             bool     `json:"clear_env,omitempty"`
	Timeout              string   `json:"timeout,omitempty"`
	KillAfter            string   `json:"kill_after,omitempty"`
	Home                 string   `json:"home,omitempty"`
	KeepChanges          string   `json:"keep_changes,omitempty"`
	ProtectGit           bool     `json:"protect_git,omitempty"`
	TraceDenials         bool     `json:"trace_denials,omitempty"`
}

// Rule is a rule. With "from" (a host path, or a symlink's target), and
// for "dir" and "symlink", "path" is the place inside, absolute.
type Rule struct {
	Path   string `json:"path"`
	Access string `json:"access"`
	From   string `json:"from,omitempty"`
	Source string `json:"source,omitempty"`
}

// The names a rule's access and source may take; the root maps each.
var (
	Accesses = []string{"rw", "ro", "deny", "tmpfs", "overlay", "dir", "symlink", "file", "dev", "dev-block"}
	Sources  = []string{"", "baseline", "user", "mandatory"}
)

// File is a policy file read: its Schema with the paths resolved (Root,
// Chdir, KeepChanges, a Home path, a Seccomp file, the rules' paths), and
// the values its strings give.
type File struct {
	Schema
	// Set are the fields the file gives, by the name of the flag that
	// also gives them ("net", "allow-userns").
	Set                map[string]bool
	AllowConnect       []values.PortRange
	AllowBind          []values.PortRange
	Publish            []values.Publish
	HostPorts          []values.PortRange
	Timeout, KillAfter time.Duration
}

// Parse reads a policy file whose relative paths are taken from dir.
// Unknown fields and values are errors.
func Parse(data []byte, dir string) (*File, error) {
	f := &File{Set: map[string]bool{}}
	j := &f.Schema
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(j); err != nil {
		return nil, err
	}
	if j.Version != 1 {
		return nil, fmt.Errorf("version %d: this nsrun reads version 1", j.Version)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, err
	}
	for k := range keys {
		f.Set[strings.ReplaceAll(k, "_", "-")] = true
	}
	for _, list := range []struct {
		name string
		v    []string
	}{{"unset_env", j.UnsetEnv}, {"keep_env", j.KeepEnv}} {
		for _, pat := range list.v {
			if err := environ.CheckPattern(pat); err != nil {
				return nil, fmt.Errorf("%s %q: %v", list.name, pat, err)
			}
		}
	}
	abs := func(path string) string {
		if path == "" || filepath.IsAbs(path) {
			return path
		}
		return filepath.Join(dir, path)
	}
	j.Root, j.Chdir, j.KeepChanges = abs(j.Root), abs(j.Chdir), abs(j.KeepChanges)
	if j.Home != "private" && j.Home != "persistent" {
		j.Home = abs(j.Home)
	}
	if j.Seccomp != "" && j.Seccomp != "default" && j.Seccomp != "off" {
		j.Seccomp = abs(j.Seccomp)
	}
	for i := range j.Rules {
		r := &j.Rules[i]
		if !slices.Contains(Accesses, r.Access) {
			return nil, fmt.Errorf("rules[%d].access %q: want rw, ro, deny, tmpfs, overlay, dir, symlink, file, dev or dev-block", i, r.Access)
		}
		if !slices.Contains(Sources, r.Source) {
			return nil, fmt.Errorf("rules[%d].source %q: want baseline, user or mandatory", i, r.Source)
		}
		if r.Path == "" {
			return nil, fmt.Errorf("rules[%d].path: empty", i)
		}
		// With "from", or for dir and symlink, the path is a place inside:
		// never taken from the file's directory; a symlink's target is
		// kept as it is.
		if r.From == "" && r.Access != "dir" && r.Access != "symlink" {
			r.Path = abs(r.Path)
		}
		if r.Access != "symlink" {
			r.From = abs(r.From)
		}
	}
	for _, c := range []struct {
		field, v string
		choices  []string
	}{
		{"net", j.Net, []string{"", "none", "host"}},
		{"isolation", j.Isolation, []string{"", "full", "landlock"}},
		{"proc", j.Proc, []string{"", "private", "host"}},
		{"sys", j.Sys, []string{"", "private", "host"}},
		{"landlock", j.Landlock, []string{"", "auto", "off"}},
	} {
		if !slices.Contains(c.choices, c.v) {
			return nil, fmt.Errorf("%s %q: not one of the known values", c.field, c.v)
		}
	}
	for _, list := range []struct {
		name string
		in   []string
		out  *[]values.PortRange
	}{{"allow_connect", j.AllowConnect, &f.AllowConnect}, {"allow_bind", j.AllowBind, &f.AllowBind}} {
		for _, v := range list.in {
			r, err := values.ParsePortRange(v)
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
		if _, _, err := values.ParseAddHost(h); err != nil {
			return nil, fmt.Errorf("add_hosts %q: %w", h, err)
		}
	}
	for _, v := range j.Publish {
		pb, err := values.ParsePublish(v)
		if err != nil {
			return nil, fmt.Errorf("publish %q: %w", v, err)
		}
		f.Publish = append(f.Publish, pb)
	}
	for _, v := range j.HostPorts {
		r, err := values.ParseHostPorts(v)
		if err != nil {
			return nil, fmt.Errorf("host_ports %q: %w", v, err)
		}
		f.HostPorts = append(f.HostPorts, r)
	}
	var err error
	if j.Timeout != "" {
		if f.Timeout, err = values.ParseTimeout(j.Timeout); err != nil {
			return nil, fmt.Errorf("timeout %q: %w", j.Timeout, err)
		}
	}
	if j.KillAfter != "" {
		if f.KillAfter, err = values.ParseTimeout(j.KillAfter); err != nil {
			return nil, fmt.Errorf("kill_after %q: %w", j.KillAfter, err)
		}
	}
	return f, nil
}
