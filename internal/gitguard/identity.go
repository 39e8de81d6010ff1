package gitguard

import (
	"os"
	"path/filepath"
	"strings"
)

// User is a git user.name and user.email.
type User struct{ Name, Email string }

// Identity reads user.name and user.email from the caller's own git
// configuration ($GIT_CONFIG_GLOBAL, else the XDG file and ~/.gitconfig,
// with what they include), the way git would for a repository at ws.
func Identity(home, ws string) User {
	var id User
	files := []string{os.Getenv("GIT_CONFIG_GLOBAL")}
	if files[0] == "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		files = []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")}
	}
	gitDir := workspaceGitDir(ws)
	var read func(path string, depth int)
	read = func(path string, depth int) {
		b, err := os.ReadFile(path)
		if err != nil || depth > 8 {
			return
		}
		es, err := ParseConfig(b)
		if err != nil {
			return
		}
		for _, e := range es {
			switch {
			case e.Section == "user" && e.Sub == "" && e.Name == "name":
				id.Name = e.Value
			case e.Section == "user" && e.Sub == "" && e.Name == "email":
				id.Email = e.Value
			case e.Name == "path" && !e.NoValue && (e.Section == "include" && e.Sub == "" ||
				e.Section == "includeif" && includeApplies(e.Sub, gitDir, home)):
				p := e.Value
				if strings.HasPrefix(p, "~/") {
					p = filepath.Join(home, p[2:])
				} else if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(path), p)
				}
				read(p, depth+1)
			}
		}
	}
	for _, f := range files {
		read(f, 0)
	}
	return id
}

// workspaceGitDir is the git directory of the repository at ws, or "".
func workspaceGitDir(ws string) string {
	for d := ws; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotgit); err == nil {
			if fi.Mode().IsRegular() {
				if b, err := os.ReadFile(dotgit); err == nil {
					if g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
						if !filepath.IsAbs(g) {
							g = filepath.Join(d, g)
						}
						dotgit = g
					}
				}
			}
			if c, err := filepath.EvalSymlinks(dotgit); err == nil {
				return c
			}
			return dotgit
		}
		if d == "/" {
			return ""
		}
	}
}

// includeApplies evaluates an includeIf condition of the gitdir kind the
// common way, a directory prefix ("gitdir:~/work/"); other conditions and
// patterns are left out.
func includeApplies(cond, gitDir, home string) bool {
	pat, ok := strings.CutPrefix(cond, "gitdir:")
	fold := false
	if !ok {
		if pat, ok = strings.CutPrefix(cond, "gitdir/i:"); !ok {
			return false
		}
		fold = true
	}
	if gitDir == "" || strings.ContainsAny(pat, "*?[") {
		return false
	}
	if strings.HasPrefix(pat, "~/") {
		pat = filepath.Join(home, pat[2:]) + map[bool]string{true: "/"}[strings.HasSuffix(pat, "/")]
	}
	if !filepath.IsAbs(pat) {
		return false
	}
	g := gitDir + "/"
	if fold {
		g, pat = strings.ToLower(g), strings.ToLower(pat)
	}
	if strings.HasSuffix(pat, "/") {
		return strings.HasPrefix(g, pat)
	}
	return g == pat+"/"
}
