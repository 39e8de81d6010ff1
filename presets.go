package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// secretPaths are where credentials usually live under a home directory;
// the agent preset hides those that exist.
var secretPaths = []string{".ssh", ".aws", ".config/gcloud", ".kube", ".docker", ".netrc", ".npmrc",
	".pypirc", ".gnupg", ".bash_history", ".zsh_history", ".python_history"}

// withPrivateHome points HOME and the usual cache variables into home.
func withPrivateHome(env []string, home string) []string {
	set := map[string]string{
		"HOME":             home,
		"XDG_CACHE_HOME":   home + "/.cache",
		"GOCACHE":          home + "/.cache/go-build",
		"GOMODCACHE":       home + "/go/pkg/mod",
		"npm_config_cache": home + "/.npm",
		"PIP_CACHE_DIR":    home + "/.cache/pip",
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := set[k]; !replaced {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}

// Presets are the names Preset knows.
var Presets = map[string]string{
	"agent":    "a coding agent's tool call: the workspace writable but its .git, secrets under the home directory hidden, a private HOME for caches, no network",
	"build":    "a build: the workspace writable, a private HOME for caches, the host's network",
	"readonly": "nothing writable but the private /tmp, no network",
}

// Preset returns the named preset for a workspace and the caller's home
// directory. Its rules have the baseline source, so the caller's own
// rules override them.
func Preset(name, workspace, home string) (*Policy, error) {
	p := &Policy{}
	ws := Rule{Path: workspace, Access: ReadWrite, Source: SourceBaseline}
	switch name {
	case "agent":
		p.Rules = append(p.Rules, ws)
		if fi, err := os.Lstat(filepath.Join(workspace, ".git")); err == nil && fi.IsDir() {
			p.Rules = append(p.Rules, Rule{Path: filepath.Join(workspace, ".git"), Access: ReadOnly, Source: SourceBaseline})
		}
		for _, s := range secretPaths {
			path := filepath.Join(home, s)
			if _, err := os.Lstat(path); err == nil && home != "" {
				p.Rules = append(p.Rules, Rule{Path: path, Access: Deny, Source: SourceBaseline})
			}
		}
		p.PrivateHome = true
	case "build":
		p.Rules = append(p.Rules, ws)
		p.Net, p.PrivateHome = NetHost, true
	case "readonly":
	default:
		names := make([]string, 0, len(Presets))
		for n := range Presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(names, ", "))
	}
	return p, nil
}
