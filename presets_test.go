package nsrun

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPresets(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	for _, s := range []string{".ssh", ".aws", ".netrc"} {
		os.WriteFile(filepath.Join(home, s), nil, 0o600)
	}
	p, err := Preset("agent", ws, home)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{{Path: ws, Access: ReadWrite, Source: SourceBaseline}, {Path: filepath.Join(ws, ".git"), Access: ReadOnly, Source: SourceBaseline},
		{Path: filepath.Join(home, ".ssh"), Access: Deny, Source: SourceBaseline}, {Path: filepath.Join(home, ".aws"), Access: Deny, Source: SourceBaseline},
		{Path: filepath.Join(home, ".netrc"), Access: Deny, Source: SourceBaseline}}
	if !reflect.DeepEqual(p.Rules, want) || !p.PrivateHome || p.Net != NetNone {
		t.Errorf("agent: %+v", p)
	}
	if p, _ := Preset("build", ws, home); p.Net != NetHost || !p.PrivateHome || len(p.Rules) != 1 {
		t.Errorf("build: %+v", p)
	}
	if p, _ := Preset("readonly", ws, home); len(p.Rules) != 0 || p.PrivateHome {
		t.Errorf("readonly: %+v", p)
	}
	if _, err := Preset("yolo", ws, home); err == nil || !strings.Contains(err.Error(), "agent, build, readonly") {
		t.Errorf("unknown preset: %v", err)
	}
	env := withPrivateHome([]string{"HOME=/root", "PATH=/bin", "GOCACHE=/root/.cache/go-build"}, "/tmp/home")
	want2 := []string{"PATH=/bin", "GOCACHE=/tmp/home/.cache/go-build", "GOMODCACHE=/tmp/home/go/pkg/mod", "HOME=/tmp/home",
		"PIP_CACHE_DIR=/tmp/home/.cache/pip", "XDG_CACHE_HOME=/tmp/home/.cache", "npm_config_cache=/tmp/home/.npm"}
	if !reflect.DeepEqual(env, want2) {
		t.Errorf("private home env %q", env)
	}
}
