package nsrun

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/nsrun/nsrun/internal/paths"
)

// persistentHomeDir is the directory a HomePersistent policy keeps HOME
// in, absolute: homeDir, else nsrun's own under the first of the caller's
// homes (Homes). The sandbox makes and uses it, and Effect shows it: one
// answer for both.
func persistentHomeDir(homeDir string, homes []string, cwd string) (string, error) {
	if homeDir == "" {
		if len(homes) == 0 {
			return "", errNoHomeForPersistent
		}
		homeDir = StateDir(homes[0], "default", "home")
	}
	return paths.Abs(homeDir, cwd), nil
}

var errNoHomeForPersistent = errors.New("--home persistent: no home directory to keep it under (HOME is unset and the password database has none); give --home DIR")

// homeVars are the variables that follow the payload's HOME: caches and
// the XDG directories, so that tools write inside it and never into the
// caller's own (read-only inside anyway).
var homeVars = []struct{ name, rel string }{
	{"XDG_CACHE_HOME", ".cache"},
	{"XDG_CONFIG_HOME", ".config"},
	{"XDG_DATA_HOME", ".local/share"},
	{"XDG_STATE_HOME", ".local/state"},
	{"GOCACHE", ".cache/go-build"},
	{"GOMODCACHE", "go/pkg/mod"},
	{"npm_config_cache", ".npm"},
	{"PIP_CACHE_DIR", ".cache/pip"},
}

// homeEnv points HOME and homeVars into home, and git's system
// configuration at identity (a file giving the caller's user.name and
// user.email) when there is one. A variable keep matches is left as it is;
// a kept HOME is the one the others follow.
func homeEnv(env []string, home, identity string, keep []string) []string {
	callerHome, _ := getEnv(env, "HOME")
	if h, ok := getEnv(env, "HOME"); ok && matchAny(keep, "HOME") {
		home = h
	} else {
		env = setEnv(env, "HOME", home)
	}
	for _, v := range homeVars {
		if !matchAny(keep, v.name) {
			env = setEnv(env, v.name, filepath.Join(home, v.rel))
		}
	}
	// rustup's toolchains stay usable (read-only) where the caller keeps
	// them; cargo's caches go to the new home.
	if _, set := getEnv(env, "RUSTUP_HOME"); !set && callerHome != "" && callerHome != home && isDir(filepath.Join(callerHome, ".rustup")) {
		env = setEnv(env, "RUSTUP_HOME", filepath.Join(callerHome, ".rustup"))
	}
	if identity != "" && !matchAny(keep, "GIT_CONFIG_SYSTEM") {
		env = setEnv(env, "GIT_CONFIG_SYSTEM", identity)
	}
	return env
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
