package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/nsrun/nsrun/internal/environ"
)

func none(string) bool { return false }

func keep(names ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(names, n) }
}

func TestHomeEnv(t *testing.T) {
	caller := t.TempDir()
	env := HomeEnv([]string{"HOME=" + caller, "PATH=/bin", "GOCACHE=/root/.cache/go-build", "XDG_CONFIG_HOME=/root/.config"}, "/h", "/s/id", none)
	want := []string{"PATH=/bin", "HOME=/h", "XDG_CACHE_HOME=/h/.cache", "XDG_CONFIG_HOME=/h/.config", "XDG_DATA_HOME=/h/.local/share",
		"XDG_STATE_HOME=/h/.local/state", "GOCACHE=/h/.cache/go-build", "GOMODCACHE=/h/go/pkg/mod", "npm_config_cache=/h/.npm",
		"PIP_CACHE_DIR=/h/.cache/pip", "GIT_CONFIG_SYSTEM=/s/id"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("home env\n%q\nwant\n%q", env, want)
	}
	// What the caller keeps stays; a kept HOME is what the rest follows.
	env = HomeEnv([]string{"HOME=/mine", "GOCACHE=/gc"}, "/h", "", keep("HOME", "GOCACHE"))
	if v, _ := environ.Get(env, "HOME"); v != "/mine" {
		t.Errorf("kept HOME: %q", env)
	}
	if v, _ := environ.Get(env, "GOCACHE"); v != "/gc" {
		t.Errorf("kept GOCACHE: %q", env)
	}
	if v, _ := environ.Get(env, "XDG_CACHE_HOME"); v != "/mine/.cache" {
		t.Errorf("caches follow the kept HOME: %q", env)
	}
	if _, ok := environ.Get(env, "GIT_CONFIG_SYSTEM"); ok {
		t.Errorf("no identity, no GIT_CONFIG_SYSTEM: %q", env)
	}
	// rustup's toolchains stay where the caller has them.
	os.Mkdir(filepath.Join(caller, ".rustup"), 0o755)
	env = HomeEnv([]string{"HOME=" + caller}, "/h", "", none)
	if v, _ := environ.Get(env, "RUSTUP_HOME"); v != filepath.Join(caller, ".rustup") {
		t.Errorf("RUSTUP_HOME: %q", env)
	}
}
