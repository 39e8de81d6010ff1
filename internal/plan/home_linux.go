package plan

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/gitguard"
)

// HomeRequest is what a policy's home needs made before planning.
type HomeRequest struct {
	// Persistent is the persistent HOME to make and check, absolute; ""
	// for none.
	Persistent string
	// CallerHome is the caller's home, whose git identity the payload's
	// git is given, and StateDir nsrun's state directory there; both ""
	// when the caller has no home.
	CallerHome, StateDir string
	Cwd                  string
}

// Home is a policy's home as made: the persistent directory (made and
// checked) and the git identity file.
type Home struct {
	Dir     string      // the persistent HOME, canonical; "" for none
	DirInfo os.FileInfo // Dir's
	// Identity is a git configuration file with the caller's identity, or
	// "" for none; IdentityErr says why there is none where writing it
	// failed (the payload's git then has none of the caller's).
	Identity    string
	IdentityErr error
}

// MakeHome makes the persistent home directory if r asks for one and
// writes the caller's git identity where the payload's git will read it.
func MakeHome(r HomeRequest) (*Home, error) {
	h := &Home{}
	if r.Persistent != "" {
		dir, fi, err := ownedDir(r.Persistent)
		if err != nil {
			return nil, &Error{Err: errs.New("%s: %w", errs.HomeDir.With(dir), err)}
		}
		h.Dir, h.DirInfo = dir, fi
	}
	if r.CallerHome != "" {
		h.Identity, h.IdentityErr = writeIdentity(r.StateDir, gitguard.Identity(r.CallerHome, r.Cwd))
	}
	return h, nil
}

// ownedDir makes dir (and its missing parents, 0700) and checks it is a
// directory of the caller's that no one else may write, reached without a
// symlink; it returns the canonical path.
func ownedDir(dir string) (string, os.FileInfo, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return dir, nil, err
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return dir, nil, err
	}
	dir = filepath.Join(parent, filepath.Base(dir))
	fi, err := os.Lstat(dir)
	if err != nil {
		return dir, nil, err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return dir, nil, errors.New("is a symlink; nsrun keeps a home only in a real directory")
	case !fi.IsDir():
		return dir, nil, errors.New("is not a directory")
	case st == nil || int(st.Uid) != os.Getuid():
		return dir, nil, fmt.Errorf("belongs to uid %d, not to you", st.Uid)
	case fi.Mode().Perm()&0o022 != 0:
		return dir, nil, fmt.Errorf("is writable by others (mode %o)", fi.Mode().Perm())
	}
	return dir, fi, nil
}

// writeIdentity keeps a git configuration file in nsrun's state directory
// with the caller's identity and, through an include, the system's own
// configuration, which GIT_CONFIG_SYSTEM pointing at it replaces. It
// returns "" when there is no identity to give.
func writeIdentity(state string, id gitguard.User) (string, error) {
	if id.Name == "" && id.Email == "" {
		return "", nil
	}
	if strings.ContainsAny(id.Name+id.Email, "\n\x00") {
		return "", errors.New("user.name or user.email holds a newline")
	}
	var b bytes.Buffer
	b.WriteString("# Written by nsrun for its sandboxes: your git identity and the system's configuration.\n")
	system := os.Getenv("GIT_CONFIG_SYSTEM")
	if system == "" {
		system = "/etc/gitconfig"
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if _, err := os.Stat(system); err == nil {
			fmt.Fprintf(&b, "[include]\n\tpath = %s\n", quoteGitValue(system))
		}
	}
	b.WriteString("[user]\n")
	if id.Name != "" {
		fmt.Fprintf(&b, "\tname = %s\n", quoteGitValue(id.Name))
	}
	if id.Email != "" {
		fmt.Fprintf(&b, "\temail = %s\n", quoteGitValue(id.Email))
	}
	dir, _, err := ownedDir(state)
	if err != nil {
		return "", fmt.Errorf("%s: %w", state, err)
	}
	path := filepath.Join(dir, "identity.gitconfig")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return path, nil
	}
	tmp, err := os.CreateTemp(dir, ".identity-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}

// quoteGitValue quotes a value for a git configuration file.
func quoteGitValue(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

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

// HomeEnv points HOME and homeVars into home, and git's system
// configuration at identity (a file giving the caller's user.name and
// user.email) when there is one. A variable kept (the caller's KeepEnv
// matches it) is left as it is; a kept HOME is the one the others follow.
func HomeEnv(env []string, home, identity string, kept func(name string) bool) []string {
	callerHome, _ := environ.Get(env, "HOME")
	if h, ok := environ.Get(env, "HOME"); ok && kept("HOME") {
		home = h
	} else {
		env = environ.Set(env, "HOME", home)
	}
	for _, v := range homeVars {
		if !kept(v.name) {
			env = environ.Set(env, v.name, filepath.Join(home, v.rel))
		}
	}
	// rustup's toolchains stay usable (read-only) where the caller keeps
	// them; cargo's caches go to the new home.
	if _, set := environ.Get(env, "RUSTUP_HOME"); !set && callerHome != "" && callerHome != home && isDir(filepath.Join(callerHome, ".rustup")) {
		env = environ.Set(env, "RUSTUP_HOME", filepath.Join(callerHome, ".rustup"))
	}
	if identity != "" && !kept("GIT_CONFIG_SYSTEM") {
		env = environ.Set(env, "GIT_CONFIG_SYSTEM", identity)
	}
	return env
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
