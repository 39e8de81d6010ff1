package nsrun

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPresets(t *testing.T) {
	ws, home, other := t.TempDir(), t.TempDir(), t.TempDir()
	for _, s := range []string{".ssh", ".aws", ".git-credentials", ".config/gh/hosts.yml", ".cargo/credentials.toml", ".claude"} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, s)), 0o755)
		os.WriteFile(filepath.Join(home, s), nil, 0o600)
	}
	os.WriteFile(filepath.Join(other, ".netrc"), nil, 0o600)
	t.Setenv("XDG_STATE_HOME", "")
	p, err := Preset("agent", ws, home, other)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{{Path: ws, Access: ReadWrite, Source: SourceBaseline}}
	for _, s := range []string{".ssh", ".git-credentials", ".config/gh", ".cargo/credentials.toml", ".aws", ".claude"} {
		want = append(want, Rule{Path: filepath.Join(home, s), Access: Deny, Source: SourceBaseline})
	}
	want = append(want, Rule{Path: filepath.Join(other, ".netrc"), Access: Deny, Source: SourceBaseline})
	if !reflect.DeepEqual(p.Rules, want) {
		t.Errorf("agent rules:\n%+v\nwant\n%+v", p.Rules, want)
	}
	if p.Home != HomePersistent || p.HomeDir != filepath.Join(home, ".local/state/nsrun/agent/home") || !p.ProtectGit ||
		p.Net != NetNone || len(p.UnsetEnv) == 0 || !reflect.DeepEqual(p.KeepEnv, SecretEnvKept) {
		t.Errorf("agent: %+v", p)
	}
	t.Setenv("XDG_STATE_HOME", "/state")
	if p, _ := Preset("build", ws, home); p.Net != NetHost || p.Home != HomePersistent || p.HomeDir != "/state/nsrun/build/home" ||
		len(p.Rules) != 1 || p.ProtectGit || len(p.UnsetEnv) != 0 {
		t.Errorf("build: %+v", p)
	}
	if p, _ := Preset("readonly", ws, home); len(p.Rules) != 0 || p.Home != HomeInherit {
		t.Errorf("readonly: %+v", p)
	}
	if p, err := Preset("agent", "", home); err != nil || len(p.Rules) != 6 {
		t.Errorf("no workspace: %+v %v", p, err)
	}
	if _, err := Preset("yolo", ws, home); err == nil || !strings.Contains(err.Error(), "agent, build, readonly") {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestCheckWorkspace(t *testing.T) {
	homes := []string{"/home/me", "/var/lib/me"}
	for dir, want := range map[string]string{
		"/": "the root", "/home/me": "your home directory", "/home": "an ancestor of your home directory /home/me",
		"/var/lib/me": "your home directory", "/var/lib": "an ancestor", "/var": "an ancestor", "/etc": "a system directory",
		"/usr": "a system directory", "/tmp": "a system directory",
		"/home/me/src": "", "/home/me/src/p": "", "/var/tmp/ws": "", "/srv/x": "", "/home/other": "",
	} {
		err := CheckWorkspace(dir, homes)
		var we *WorkspaceError
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", dir, err)
			}
			continue
		}
		if !errors.As(err, &we) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Policy.Rules ReadWrite DIR") {
			t.Errorf("%s: %v, want %q", dir, err, want)
		}
	}
	if _, err := Preset("agent", "/home/me", homes...); err == nil {
		t.Error("the agent preset must refuse the home directory")
	}
}
