package gitguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HostConfig sets in's Global and AcrossFilesystems as host git would
// read them for a user whose homes are in.Homes: the user's configuration
// files (XDG's and ~/.gitconfig, GIT_CONFIG_GLOBAL), the system's, and
// GIT_DISCOVERY_ACROSS_FILESYSTEM.
func (in *Input) HostConfig() {
	for _, h := range in.Homes {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(h, ".config")
		}
		in.Global = append(in.Global, filepath.Join(xdg, "git", "config"), filepath.Join(h, ".gitconfig"))
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); filepath.IsAbs(g) {
		in.Global = append(in.Global, g)
	}
	in.Global = append(in.Global, "/etc/gitconfig")
	in.AcrossFilesystems = gitBool(os.Getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM"))
}

// gitBool reads an environment variable as git reads a boolean one.
func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Note says what the sandbox makes of the repository e, found above a
// writable directory (for -v).
func (e Enclosing) Note() string {
	switch {
	case !e.Own:
		return fmt.Sprintf("%s lies in the repository %s (git directory %s): what its configuration names in writable places is protected", e.Root, e.Top, e.GitDir)
	case e.Writable:
		return fmt.Sprintf("%s lies in the repository %s, whose git directory %s is writable by a rule: protected as the workspace's", e.Root, e.Top, e.GitDir)
	}
	return fmt.Sprintf("%s lies in the repository %s, whose git directory %s is read-only here: git in the sandbox cannot commit to it (--rw %s lets it, protected as the workspace's); what its configuration names in writable places is protected", e.Root, e.Top, e.GitDir, e.GitDir)
}
