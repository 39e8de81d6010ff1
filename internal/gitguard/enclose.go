package gitguard

import (
	"errors"
	"os"
	"path/filepath"
)

// A writable directory may lie inside the work tree of a repository that
// is not in it: the agent started in a package of a monorepo (`cd
// proj/frontend && nsrun ...`), or in a directory of a home kept in git.
// Host git started there (or in a repository found there whose git
// directory the payload made invalid: git then looks on upward) finds
// that enclosing repository. Its git directory lies outside, and stays
// as the rules show it; but its configuration may name for git to run or
// read a file inside the writable directory (husky installed in a
// subdirectory sets core.hooksPath to frontend/.husky). What it names
// there is protected as for the repositories inside.

// Enclosing is a repository host git finds above a writable directory.
type Enclosing struct {
	// Root is the writable directory it was found from; Top the directory
	// git found it in (its work tree, or the bare repository); GitDir its
	// git directory, canonical.
	Root, Top, GitDir string
	// Writable says the payload may write in GitDir (a rule makes it so):
	// git in the sandbox can commit there.
	Writable bool
	// Own says Root holds no repository of its own, so git in the
	// sandbox started there uses this one.
	Own bool
}

// found is what git's discovery finds in one directory.
type found struct {
	gitDir string // the git directory as named (joined, not cleaned)
	file   bool   // named by a .git file: git uses it or stops there
	bad    bool   // a .git file git cannot read: it stops with an error
}

// discoverIn says what git's discovery finds in directory d: a .git file
// (git follows a symlink there), which names the git directory and ends
// the discovery; a .git directory that is a git directory; or d itself as
// a bare repository. ok is false when git looks on in the parent.
func discoverIn(d string) (f found, ok bool) {
	dotgit := filepath.Join(d, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err == nil && fi.Mode().IsRegular():
		gd, err := readGitFile(dotgit)
		if err != nil {
			return found{file: true, bad: true}, true
		}
		return found{gitDir: gd, file: true}, true
	case err == nil && fi.IsDir() && isGitDir(dotgit):
		return found{gitDir: dotgit}, true
	case isGitDir(d):
		return found{gitDir: d}, true
	}
	return found{}, false
}

// enclosing walks from root upward as host git's discovery does (without
// GIT_CEILING_DIRECTORIES, which the user's later git may not have set;
// stopping where the file system changes unless in.AcrossFilesystems) and
// protects each repository it finds above root. It looks on past a
// repository whose git directory the payload can write, since the payload
// can make that one invalid; a .git file, or a git directory it cannot
// write, is where host git stops.
func (g *guard) enclosing(root string) {
	dev0, devOK := device(root)
	own := true
	for d := root; ; d = filepath.Dir(d) {
		if d != root && devOK && !g.in.AcrossFilesystems {
			if dev, ok := device(d); !ok || dev != dev0 {
				return
			}
		}
		f, ok := discoverIn(d)
		if ok {
			if d == root {
				// Protected as the workspace's own, by the walk.
				own = false
			} else {
				g.enclosingRepo(root, d, f, own)
				own = false
			}
			if f.file || !g.breakable(f.gitDir) {
				return
			}
		}
		if d == "/" || d == "." {
			return
		}
	}
}

// breakable reports whether the payload could make git dir invalid (write
// its HEAD), so that git's discovery would look on past it.
func (g *guard) breakable(dir string) bool {
	canon, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return true
	}
	return g.writable(canon) || g.writable(filepath.Join(canon, "HEAD"))
}

// enclosingRepo protects what the repository git finds in top (from
// root) names in writable places: its configuration (with config.worktree
// and what they include) is read as the inside repositories' are, with
// top (or core.worktree) as the work tree relative paths start from.
func (g *guard) enclosingRepo(root, top string, f found, own bool) {
	if f.file {
		g.readOnly(filepath.Join(top, ".git"))
	}
	if f.bad {
		// Host git stops there with an error: it runs nothing.
		return
	}
	w := follow(f.gitDir)
	g.hold(w)
	switch {
	case w.err != nil:
		g.warnf("%s: the git directory %s of the repository enclosing %s cannot be resolved (%v); what its configuration names is not protected", top, f.gitDir, root, errText(w.err))
		return
	case w.file != "":
		g.readOnly(w.file)
		return
	case w.canon == "":
		// A .git file naming a git directory that does not exist: one the
		// payload made there would be host git's.
		g.keepAbsent(w.dir, w.name, "host git in "+top+" would use it as the git directory")
		return
	}
	canon := w.canon
	if within(root, canon) {
		// root is that git directory, or in it: protected by the walk.
		return
	}
	if g.enclosed[canon] {
		g.encl = append(g.encl, Enclosing{Root: root, Top: top, GitDir: canon, Writable: g.writable(canon), Own: own})
		return
	}
	g.enclosed[canon] = true
	g.trees[top] = true
	cd, err := g.readCommondir(canon)
	if err != nil {
		g.warnf("%s (the repository enclosing %s): %v; what its configuration names is not protected", canon, root, err)
		return
	}
	common := canon
	if cd != "" {
		common = cd
	}
	if _, seen := g.commons[common]; seen || g.writable(common) {
		// A git directory a writable rule shows (the walk found it, or a
		// linked worktree in the workspace uses it): protected as the
		// inside ones, with top as one more work tree.
		c := g.commonDir(common, []string{top}, false)
		if cd != "" && c.worktreeConf {
			g.configFile(filepath.Join(canon, "config.worktree"), []string{top}, 0)
		}
		g.encl = append(g.encl, Enclosing{Root: root, Top: top, GitDir: canon, Writable: g.writable(canon), Own: own})
		return
	}
	if err := g.enclosingConfig(common, canon, top); err != nil {
		g.warnf("%s (the repository enclosing %s): %v; what it names is not protected", filepath.Join(common, "config"), root, err)
	}
	g.encl = append(g.encl, Enclosing{Root: root, Top: top, GitDir: canon, Own: own})
}

// enclosingConfig reads the configuration of a git directory outside the
// writable places (common, and the linked worktree's own dir) and
// protects the paths it names. Nothing in the git directory is made
// writable: it is not the workspace's.
func (g *guard) enclosingConfig(common, dir, top string) error {
	path := filepath.Join(common, "config")
	// Its git directory is read-only here, but what a symlink in it leads
	// to may lie in the workspace (hooks kept in the project's tree and
	// linked in): host git runs or reads that.
	g.target(path, "host git reads its configuration there")
	g.target(filepath.Join(common, "info", "attributes"), "git reads attributes from it")
	hooks := filepath.Join(common, "hooks")
	g.target(hooks, "git runs the hooks there")
	g.hookLinks(hooks)
	b, err := readSmall(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	es, err := ParseConfig(b)
	if err != nil {
		return err
	}
	trees := []string{top}
	if wt := worktreeOf(es, common); wt != "" && dir == common {
		// core.worktree moves the work tree git runs commands in.
		g.hold(follow(wt))
		if c, err := filepath.EvalSymlinks(wt); err == nil && c != top {
			trees = append(trees, c)
			g.trees[c] = true
		}
	}
	g.parsed[path] = true
	g.entries(path, es, trees, 0)
	worktreeConf := false
	for _, e := range es {
		if e.Section == "extensions" && e.Sub == "" && e.Name == "worktreeconfig" {
			worktreeConf, _ = Bool(e)
		}
	}
	if worktreeConf {
		// The main work tree's, or a linked worktree's own.
		g.configFile(filepath.Join(dir, "config.worktree"), trees, 0)
	}
	return nil
}

// worktreeOf is what core.worktree names in es, relative to the git
// directory dir; "" when it names nothing.
func worktreeOf(es []Entry, dir string) string {
	wt := ""
	for _, e := range es {
		if e.Section == "core" && e.Sub == "" && e.Name == "worktree" && !e.NoValue {
			wt = e.Value
		}
	}
	if wt != "" && !filepath.IsAbs(wt) {
		wt = dir + "/" + wt
	}
	return wt
}
