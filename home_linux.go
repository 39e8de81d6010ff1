package nsrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nsrun/nsrun/internal/gitguard"
)

// homeSetup is what a Policy's Home needs before planning: the persistent
// directory (made and checked) with its rule, and the git identity file.
type homeSetup struct {
	dir      string      // the persistent HOME, "" for none
	rules    []canonRule // the rules that show it and the identity file
	identity string      // a git configuration file with the caller's identity, or ""
}

// setupHome makes the persistent home directory if the policy has one and
// writes the caller's git identity where the payload's git will read it.
func (c *Cmd) setupHome(p *Policy, cwd string) (*homeSetup, error) {
	hs := &homeSetup{}
	if p.Home == HomeInherit {
		return hs, nil
	}
	homes := Homes()
	if p.Home == HomePersistent {
		dir, err := persistentHomeDir(p.HomeDir, homes, cwd)
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Msg: err.Error()}
		}
		dir, fi, err := ownedDir(dir)
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Op: "--home " + dir, Err: err}
		}
		hs.dir = dir
		hs.rules = append(hs.rules, canonRule{Rule: Rule{Path: dir, Access: ReadWrite, Source: SourceInternal}, Canon: dir, Dir: true, info: fi, internal: true})
	}
	if len(homes) > 0 {
		id, err := writeIdentity(StateDir(homes[0]), gitguard.Identity(homes[0], cwd))
		if err == nil && id != "" {
			// Shown where it is even when that is hidden otherwise (under
			// the private /tmp).
			var cr canonRule
			if cr, err = canonicalRule(Rule{Path: id, Access: ReadOnly, Source: SourceInternal}, "/"); err == nil {
				cr.internal = true
				hs.rules = append(hs.rules, cr)
				hs.identity = cr.Canon
			}
		}
		if err != nil {
			c.warnf("git identity: %v; git inside has none of yours", err)
		}
	}
	return hs, nil
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
