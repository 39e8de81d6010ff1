// Package gitguard finds the git repositories in a sandbox's writable
// directories and says what must be read-only, writable or absent so that
// git works inside while nothing the payload writes makes host git run the
// payload's programs later.
//
// Host git executes or trusts, from a repository: its config (and
// config.worktree, and the files config includes), hooks/, info/attributes,
// commondir (also when planted in a plain repository: it points git at
// another repository's config), the gitdir and commondir files of linked
// worktrees, the config and hooks of submodules under modules/, the .git
// file of a worktree or submodule, and every program or file a config
// variable names (core.hooksPath, core.fsmonitor, filters, diff drivers,
// aliases, ...). Git itself writes, while it works, the index and its lock,
// HEAD, ORIG_HEAD, packed-refs and their locks directly in the git
// directory, so that directory stays a real writable one: what exists is
// made read-only one by one, and what is absent (commondir, hooks/ or info/
// when missing) can only be kept absent from outside, by watching.
//
// Every repository in the writable directories is found, at any depth, by
// a walk of directory listings; and where the user stands to use one (the
// workspace's top, each repository's top, the directories between) the
// names that would let git's discovery find a repository of the payload's
// instead are kept absent (see discovery.go).
//
// It reads files only; it never runs git. Nothing here touches the kernel:
// the caller turns the answer into mount rules, Landlock grants and watches.
//
// What it cannot protect: a new repository the payload creates elsewhere
// (a nested one, a new submodule) is the payload's, like any file it
// writes; Made and Nested name them afterwards (see docs/AGENT.md).
package gitguard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// State is what the caller's rules make of a host path.
type State int

const (
	// HostReadOnly: only the read-only host root covers the path.
	HostReadOnly State = iota
	// Writable: a writable rule covers the path.
	Writable
	// Restricted: a rule shows it read-only, hides it, or replaces it.
	Restricted
)

// Input is where to look and how the sandbox sees the host.
type Input struct {
	// Roots are canonical writable directories to look for repositories in.
	Roots []string
	// Decide says what the sandbox's rules make of a canonical host path.
	Decide func(path string) State
	// Homes are the caller's home directories, for "~" in configuration.
	Homes []string
	// Global are the user's and the system's git configuration files: the
	// paths they name are protected too where they lie in writable places.
	Global []string
	// AcrossFilesystems says host git's discovery goes on past a file
	// system's boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM), when it looks
	// for the repository enclosing a root.
	AcrossFilesystems bool
}

// Absent is a name that must not appear in a directory while the sandbox
// runs, and what host git would do with it.
type Absent struct {
	Dir, Name string
	Why       string
}

// Path is the absent path.
func (a Absent) Path() string { return filepath.Join(a.Dir, a.Name) }

// Protection is the answer: paths to show read-only, git directories to
// make writable (outside the writable rules, git cannot work without
// them), names to keep absent, and what the caller should be told.
type Protection struct {
	ReadOnly []string
	Writable []string
	Absent   []Absent
	// Links are symlinks in writable places on the way to what is
	// protected (canonical up to their last name): host git follows them
	// later, so the caller must keep each in place (or refuse to run).
	Links []string
	// Held are directories in writable places that the way to what is
	// protected enters and leaves again by "..": the caller must keep
	// each in place.
	Held     []string
	Warnings []string
	// Trees are the work trees found, to look at with Nested afterwards;
	// Known are those, the other work trees seen and the git directories
	// found as directories of their own, by directory; Roots are the
	// directories searched (for Made afterwards).
	Trees []Tree
	Known map[string]bool
	Roots []string
	// Modules are the modules/ directories of the git directories
	// protected, where a submodule's git directory the payload makes is
	// adopted by host git's submodule update (see MadeModules).
	Modules []string
	// Enclosing are the repositories host git finds above the roots, whose
	// configuration was read for what it names in writable places.
	Enclosing []Enclosing
}

// maxDepth bounds how far submodules nest and includes chain.
const maxDepth = 8

// Protect finds the repositories under in.Roots and decides their
// protection.
func Protect(in Input) *Protection {
	g := &guard{in: in, ro: map[string]bool{}, rw: map[string]bool{}, absent: map[string]Absent{},
		commons: map[string]*common{}, trees: map[string]bool{}, bares: map[string]bool{}, parsed: map[string]bool{},
		links: map[string]bool{}, held: map[string]bool{}, enclosed: map[string]bool{}}
	for _, r := range outermost(in.Roots) {
		g.scan(r)
	}
	// After the walk: a linked worktree in the workspace whose main
	// repository encloses it has made that repository's directory
	// writable already, as it must be for git there.
	for _, r := range outermost(in.Roots) {
		g.enclosing(r)
	}
	for _, f := range in.Global {
		// Host git reads it in every repository: where a rule makes it
		// writable, it is protected as an included file is.
		g.target(f, "host git reads your configuration from it")
		g.configFile(f, g.allTrees(), 0)
	}
	g.guardDiscovery()
	return g.answer()
}

type guard struct {
	in      Input
	ro, rw  map[string]bool
	absent  map[string]Absent
	warn    []string
	commons map[string]*common
	trees   map[string]bool // work trees seen
	bares   map[string]bool // git directories found as directories of their own
	parsed  map[string]bool // configuration files read
	links   map[string]bool // symlinks to hold
	held    map[string]bool // directories to hold
	indexes []Tree
	// enclosed are the git directories of the repositories found above
	// the roots, encl what is told of them.
	enclosed map[string]bool
	encl     []Enclosing
}

// common is a git directory with its own config: a repository's .git, a
// submodule's directory under modules/, or the main repository of a linked
// worktree.
type common struct {
	dir          string
	entries      []Entry
	trees        map[string]bool // work trees git runs commands in
	worktreeConf bool            // extensions.worktreeConfig
	privates     map[string]bool // git directories of linked worktrees in the workspace
	broken       bool
}

func (c *common) addTrees(ts []string) {
	if c.trees == nil {
		c.trees = map[string]bool{}
	}
	for _, t := range ts {
		c.trees[t] = true
	}
}

func (g *guard) warnf(format string, a ...any) { g.warn = append(g.warn, fmt.Sprintf(format, a...)) }

// writable reports whether the payload could write p: a writable rule, or
// one of the directories made writable here, covers it, and nothing made
// read-only here does.
//
// It looks up p and each directory above it, so that its cost grows with
// p's depth, not with how many paths were protected.
func (g *guard) writable(p string) bool {
	rw := false
	for d := p; ; d = filepath.Dir(d) {
		if g.ro[d] {
			return false
		}
		rw = rw || g.rw[d]
		if d == "/" || d == "." {
			break
		}
	}
	return rw || g.in.Decide(p) == Writable
}

// readOnly shows p read-only if the payload could otherwise change it. A
// socket, pipe or device (git's fsmonitor daemon keeps a socket in .git)
// holds nothing git runs or reads.
func (g *guard) readOnly(p string) {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&(fs.ModeSocket|fs.ModeNamedPipe|fs.ModeDevice|fs.ModeCharDevice) != 0 {
		return
	}
	if g.writable(p) {
		g.ro[p] = true
		if fi.Mode().IsRegular() && links(fi) > 1 {
			// A read-only path does not hold the file's other names: one
			// in a writable place (a project's scripts/pre-commit hard-
			// linked into .git/hooks) writes the file host git runs.
			g.warnf("%s has %d hard links: a link to it where the sandbox may write changes what host git runs or reads; it is not protected", p, links(fi))
		}
	}
}

// keepAbsent watches for name in dir, if the payload could create it there.
func (g *guard) keepAbsent(dir, name, why string) {
	if g.writable(dir) {
		a := Absent{Dir: dir, Name: name, Why: why}
		g.absent[a.Path()] = a
	}
}

// scan protects every repository in a writable directory, at any depth:
// each work tree (a directory with a .git of any kind) and each git
// directory found as a directory of its own (a bare repository, a
// separate git directory). The walk reads directory listings only and
// does not look inside git directories: what host git uses there
// (submodules under modules/, linked worktrees under worktrees/) is
// followed from each repository.
func (g *guard) scan(root string) {
	n, stopped := walk(root, walkLimit, func(dir string, l *listing) {
		if l.gitDirNames() && isGitDir(dir) {
			g.bare(dir)
		}
		if l.hasDotgit {
			g.workTree(dir, 0)
		}
	}, func(dir string, err error) {
		if mayHide(dir) {
			g.warnf("%s cannot be read (%s): repositories in it are not protected", dir, errText(err))
		}
	})
	if stopped != "" {
		g.warnf("%s: the search for repositories stopped after %d directories, at %s: repositories in the directories not read are not protected", root, n, stopped)
	}
}

// bare protects a git directory found as a directory of its own: a bare
// repository, a separate git directory, or (with a commondir) a linked
// worktree's own git directory, whose commondir and gitdir are then what
// host git trusts.
func (g *guard) bare(dir string) {
	if g.bares[dir] {
		return
	}
	g.bares[dir] = true
	cd, err := g.readCommondir(dir)
	switch {
	case err != nil:
		g.warnf("%s: %v; it is read-only", dir, err)
		g.readOnly(dir)
	case cd != "":
		g.private(dir, g.commonDir(cd, nil, false))
	default:
		g.commonDir(dir, []string{dir}, true)
	}
}

// subdirs lists the directories (not symlinks to them) in dir.
func subdirs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// workTree protects the repository whose work tree is t, if there is one.
func (g *guard) workTree(t string, depth int) bool {
	dotgit := filepath.Join(t, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil || depth > maxDepth || g.trees[t] {
		return err == nil
	}
	g.trees[t] = true
	var c *common
	switch {
	case !usableDotgit(t):
		// A FIFO, a socket, a symlink leading nowhere: git passes it over,
		// and so does the protection. The payload may put a repository of
		// its own there; t is then no work tree found, so that Made names
		// it after the run.
		delete(g.trees, t)
		return false
	case fi.Mode()&fs.ModeSymlink != 0:
		g.readOnly(dotgit)
		g.warnf("%s is a symlink: the repository it leads to is read-only", dotgit)
		return true
	case fi.Mode().IsRegular():
		g.readOnly(dotgit)
		gitdir, err := readGitFile(dotgit)
		if err != nil {
			g.warnf("%s: %v; it is read-only, and git there may not work", dotgit, err)
			return true
		}
		c = g.gitDir(t, gitdir, depth)
	default:
		c = g.gitDir(t, dotgit, depth)
	}
	g.submodules(t, c, depth)
	return true
}

// gitDir protects the git directory of work tree t, and the symlinks on
// the way to it; it returns the common git directory, nil if there is
// none to protect.
func (g *guard) gitDir(t, dir string, depth int) *common {
	w := follow(dir)
	g.hold(w)
	if w.err == nil && w.canon == "" && w.file == "" {
		// It does not exist: host git in t stops with an error until one
		// is made there, and then uses it.
		g.keepAbsent(w.dir, w.name, "host git in "+t+" would use it as the git directory")
	}
	canon, err := filepath.EvalSymlinks(dir)
	if err == nil && !isGitDir(canon) {
		err = errors.New("not a git directory")
	}
	if err != nil {
		g.warnf("%s: the git directory %s cannot be protected (%v); git there may not work", t, dir, errText(err))
		g.readOnly(dir)
		return nil
	}
	if g.in.Decide(canon) == Restricted && !g.writable(canon) {
		g.warnf("%s: its git directory %s is read-only or hidden by a rule; git there cannot write", t, canon)
		return nil
	}
	cd, err := g.readCommondir(canon)
	if err != nil {
		g.warnf("%s: %v; it is read-only", canon, err)
		g.readOnly(canon)
		return nil
	}
	if cd == "" {
		c := g.commonDir(canon, []string{t}, true)
		g.tree(t, canon, c)
		return c
	}
	// A linked worktree: its own directory, and the main repository's.
	c := g.commonDir(cd, []string{t}, false)
	g.private(canon, c)
	g.tree(t, canon, c)
	return c
}

// tree records work tree t, whose index is in dir, for the check after the
// run (see Nested).
func (g *guard) tree(t, dir string, c *common) {
	if c.broken {
		return
	}
	hash := 20
	for _, e := range c.entries {
		if e.Section == "extensions" && e.Sub == "" && e.Name == "objectformat" && e.Value == "sha256" {
			hash = 32
		}
	}
	tr := Tree{Dir: t, Index: filepath.Join(dir, "index"), hashSize: hash}
	// What git hides already (a sparse checkout's skip-worktree entries,
	// say) is not the payload's doing.
	tr.hidden, tr.stats, _ = hiddenEntries(tr.Index, hash)
	tr.exclude = filepath.Join(c.dir, "info", "exclude")
	b, err := readSmall(tr.exclude)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = nil, nil
	}
	tr.excludeWas, tr.excludeRead = b, err == nil
	g.indexes = append(g.indexes, tr)
}

// readGitFile reads the "gitdir: PATH" line of a .git file, relative to
// the file's directory.
func readGitFile(path string) (string, error) {
	b, err := readSmall(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	dir, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || dir == "" {
		return "", errors.New("not a gitdir: file")
	}
	if !filepath.IsAbs(dir) {
		// Not cleaned: the kernel takes ".." after a symlink from its
		// target.
		dir = filepath.Dir(path) + "/" + dir
	}
	return dir, nil
}

// readCommondir returns the canonical directory a commondir file in dir
// names, or "" when there is none; the symlinks on the way are held.
func (g *guard) readCommondir(dir string) (string, error) {
	b, err := readSmall(filepath.Join(dir, "commondir"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("commondir: %w", err)
	}
	cd := strings.TrimRight(string(b), "\r\n")
	if cd == "" {
		return "", errors.New("commondir is empty")
	}
	if !filepath.IsAbs(cd) {
		cd = dir + "/" + cd
	}
	w := follow(cd)
	g.hold(w)
	if w.err == nil && w.canon == "" && w.file == "" {
		// It does not exist: host git takes the configuration of one made
		// there.
		g.keepAbsent(w.dir, w.name, "host git would take the configuration of "+dir+" from it")
	}
	canon, err := filepath.EvalSymlinks(cd)
	if err == nil && !isGitDir(canon) {
		err = errors.New("not a git directory")
	}
	if err != nil {
		return "", fmt.Errorf("commondir %s: %v", cd, errText(err))
	}
	return canon, nil
}

// commonDir protects a git directory with its own config. direct says a
// work tree in the workspace uses it as its git directory; then, or when
// its main work tree is writable, everything in it is the workspace's.
// Otherwise it is the main repository of a linked worktree whose main work
// tree is elsewhere, and only what worktrees share stays writable.
func (g *guard) commonDir(dir string, trees []string, direct bool) *common {
	c, seen := g.commons[dir]
	if !seen {
		c = &common{dir: dir}
		g.commons[dir] = c
		if !g.writable(dir) && g.in.Decide(dir) == HostReadOnly {
			// Outside the writable rules: git cannot work without it.
			g.rw[dir] = true
		}
	}
	var fresh []string
	for _, t := range trees {
		if !c.trees[t] {
			fresh = append(fresh, t)
		}
	}
	c.addTrees(fresh)
	if seen {
		if !c.broken && len(fresh) > 0 {
			g.entries(filepath.Join(dir, "config"), c.entries, fresh, 0)
		}
		return c
	}
	entries, err := g.config(dir, trees)
	if err != nil {
		c.broken = true
		delete(g.rw, dir)
		g.warnf("%s: %v; the whole git directory is read-only", dir, err)
		g.readOnly(dir)
		return c
	}
	c.entries = entries
	for _, e := range entries {
		if e.Section == "extensions" && e.Sub == "" && e.Name == "worktreeconfig" {
			c.worktreeConf, _ = Bool(e)
		}
	}
	// info/ holds what git writes too (exclude, sparse-checkout): only its
	// attributes, which pick filters and diff drivers, are protected.
	if exists(filepath.Join(dir, "info")) {
		g.target(filepath.Join(dir, "info", "attributes"), "git reads attributes from it")
	}
	for _, t := range []struct{ name, why string }{
		{"config", "git reads its configuration there"},
		{"hooks", "git runs the hooks there"},
		{"info", "git reads info/attributes there"},
		{"config.worktree", "git reads its configuration there"},
	} {
		if t.name == "info" && exists(filepath.Join(dir, "info")) {
			continue
		}
		switch {
		case exists(filepath.Join(dir, t.name)):
			g.readOnly(filepath.Join(dir, t.name))
			if t.name == "hooks" {
				g.hookLinks(filepath.Join(dir, t.name))
			}
		case t.name != "config.worktree" || c.worktreeConf:
			g.keepAbsent(dir, t.name, t.why)
		}
	}
	g.keepAbsent(dir, "commondir", "git would take another repository's configuration from it")
	if c.worktreeConf {
		g.configFile(filepath.Join(dir, "config.worktree"), trees, 0)
	}
	if direct || g.writable(g.mainWorkTree(c)) {
		g.modules(filepath.Join(dir, "modules"), 0)
	} else {
		g.foreignEntries(c)
	}
	return c
}

// mainWorkTree is the work tree a common git directory belongs to: the
// parent of a .git, or what core.worktree names; "" when not known.
func (g *guard) mainWorkTree(c *common) string {
	for _, e := range c.entries {
		if e.Section == "core" && e.Sub == "" && e.Name == "worktree" && e.Value != "" {
			wt := e.Value
			if !filepath.IsAbs(wt) {
				wt = c.dir + "/" + wt
			}
			// Host git's work tree: a symlink on the way, repointed, would
			// give it another.
			g.hold(follow(wt))
			if canon, err := filepath.EvalSymlinks(wt); err == nil {
				return canon
			}
			return ""
		}
	}
	if filepath.Base(c.dir) == ".git" {
		return filepath.Dir(c.dir)
	}
	return ""
}

// sharedEntries are what git in a linked worktree writes in the main
// repository's directory: everything else there belongs to the main work
// tree (its HEAD, index, state) or to host git's trust.
var sharedEntries = map[string]bool{"objects": true, "refs": true, "logs": true, "packed-refs": true,
	"worktrees": true, "lfs": true, "shallow": true, "rr-cache": true, "annex": true}

// foreignEntries protects the main repository of a linked worktree: only
// what git shares between worktrees stays writable.
func (g *guard) foreignEntries(c *common) {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		g.readOnly(c.dir)
		return
	}
	for _, e := range ents {
		if !sharedEntries[e.Name()] {
			g.readOnly(filepath.Join(c.dir, e.Name()))
		}
	}
	if head := filepath.Join(c.dir, "logs", "HEAD"); exists(head) {
		g.readOnly(head) // the main work tree's own reflog
	}
}

// private protects the own directory of a linked worktree in the
// workspace (under the main repository's worktrees/).
func (g *guard) private(dir string, c *common) {
	if c.broken {
		return
	}
	if !g.writable(dir) && g.in.Decide(dir) == HostReadOnly {
		g.rw[dir] = true
	}
	if c.privates == nil {
		c.privates = map[string]bool{}
	}
	c.privates[dir] = true
	for _, name := range []string{"commondir", "gitdir", "config.worktree"} {
		if exists(filepath.Join(dir, name)) {
			g.readOnly(filepath.Join(dir, name))
		}
	}
	if c.worktreeConf {
		if !exists(filepath.Join(dir, "config.worktree")) {
			g.keepAbsent(dir, "config.worktree", "git reads this worktree's configuration there")
		}
		g.configFile(filepath.Join(dir, "config.worktree"), g.allTrees(), 0)
	}
}

// otherWorktrees shows read-only the directories of each repository's
// linked worktrees that are not in the workspace: git here has nothing to
// write in them, and their commondir and gitdir are what host git trusts.
func (g *guard) otherWorktrees() {
	for _, c := range g.commons {
		if c.broken {
			continue
		}
		for _, w := range subdirs(filepath.Join(c.dir, "worktrees")) {
			if !c.privates[w] {
				g.readOnly(w)
			}
		}
	}
}

// modules protects the git directories of submodules under dir (names
// may hold slashes, so directories that are not git directories are
// looked into).
func (g *guard) modules(dir string, depth int) {
	if depth > maxDepth {
		return
	}
	for _, m := range subdirs(dir) {
		if !isGitDir(m) {
			g.modules(m, depth+1)
			continue
		}
		trees := []string{}
		if wt := g.moduleWorkTree(m); wt != "" {
			trees = append(trees, wt)
		}
		g.commonDir(m, trees, false)
		for _, t := range trees {
			g.workTree(t, depth+1)
		}
	}
}

// moduleWorkTree is the work tree a submodule's git directory names with
// core.worktree, if it lies in a writable place.
func (g *guard) moduleWorkTree(m string) string {
	b, err := readSmall(filepath.Join(m, "config"))
	if err != nil {
		return ""
	}
	es, err := ParseConfig(b)
	if err != nil {
		return ""
	}
	for _, e := range es {
		if e.Section == "core" && e.Sub == "" && e.Name == "worktree" && e.Value != "" {
			wt := e.Value
			if !filepath.IsAbs(wt) {
				wt = m + "/" + wt
			}
			g.hold(follow(wt))
			if canon, err := filepath.EvalSymlinks(wt); err == nil && g.writable(canon) {
				return canon
			}
		}
	}
	return ""
}

// submodules protects the submodules .gitmodules lists in work tree t,
// whose common git directory is c (nil if not protected). A submodule not
// yet initialised has no git directory under c's modules/: the name is
// kept absent, since host git's `submodule update --init` would adopt a
// git directory found there (and run its hooks) instead of cloning.
func (g *guard) submodules(t string, c *common, depth int) {
	b, err := readSmall(filepath.Join(t, ".gitmodules"))
	if err != nil {
		return
	}
	es, err := ParseConfig(b)
	if err != nil {
		g.warnf("%s/.gitmodules: %v; its submodules are found through the git directory only", t, err)
		return
	}
	for _, e := range es {
		if e.Section != "submodule" || e.Name != "path" || e.Value == "" || filepath.IsAbs(e.Value) {
			continue
		}
		if c != nil && !c.broken && validModuleName(e.Sub) {
			// (A directory there that is no git directory yet is
			// read-only: filled, it would be one.)
			if m := filepath.Join(c.dir, "modules", e.Sub); !isGitDir(m) {
				g.target(m, "host git's submodule update would use it as the submodule's git directory")
			}
		}
		s := filepath.Join(t, e.Value)
		if within(s, t) && s != t {
			g.workTree(s, depth+1)
		}
	}
}

// config reads a git directory's config and what it includes, protecting
// the paths they name; trees are the work trees git runs commands in.
func (g *guard) config(dir string, trees []string) ([]Entry, error) {
	path := filepath.Join(dir, "config")
	b, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	es, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("config %s", err)
	}
	g.parsed[path] = true
	g.entries(path, es, trees, 0)
	return es, nil
}

// configFile reads a configuration file that may be absent and protects
// what it names.
func (g *guard) configFile(path string, trees []string, depth int) {
	if g.parsed[path] || depth > maxDepth {
		return
	}
	g.parsed[path] = true
	b, err := readSmall(path)
	if err != nil {
		return
	}
	es, err := ParseConfig(b)
	if err != nil {
		if g.writable(path) {
			g.readOnly(path)
		}
		g.warnf("%s: %s; the paths it names are not known", path, err)
		return
	}
	g.entries(path, es, trees, depth)
}

// entries protects the files and programs configuration entries name.
func (g *guard) entries(file string, es []Entry, trees []string, depth int) {
	for _, e := range es {
		kind, vals := classify(e)
		switch kind {
		case kindInclude:
			for _, p := range g.resolve(vals, []string{filepath.Dir(file)}) {
				g.target(p, "git includes its configuration")
				g.configFile(p, trees, depth+1)
			}
		case kindRemote:
			// A push runs the hooks of the repository it reaches. One
			// there already is a repository of the workspace's, which
			// the walk protects; where nothing is, or a directory that is
			// no repository yet, the payload could make one: kept absent,
			// or read-only.
			for _, p := range g.resolve(vals, trees) {
				fi, err := os.Lstat(p)
				if errors.Is(err, os.ErrNotExist) || err == nil && fi.IsDir() && !exists(filepath.Join(p, "HEAD")) && !exists(filepath.Join(p, ".git")) {
					g.target(p, fmt.Sprintf("a push runs the hooks of the repository there (%s)", e.Key()))
				}
			}
		case kindPath, kindCommand:
			for _, p := range g.resolve(vals, trees) {
				why := fmt.Sprintf("git runs or reads it (%s)", e.Key())
				g.target(p, why)
				if e.Key() != "core.hookspath" {
					continue
				}
				g.hookLinks(p)
				if filepath.Base(p) == "_" && filepath.Base(filepath.Dir(p)) == ".husky" {
					// husky's hooks in .husky/_ run the scripts in .husky.
					g.target(filepath.Dir(p), why)
					g.hookLinks(filepath.Dir(p))
				}
			}
		}
	}
}

// hookLinks protects what the symlinks in a hooks directory lead to. A
// project's hook kept in its tree and linked in (`ln -s
// ../../scripts/pre-commit .git/hooks/pre-commit`) is run by host git
// through the link: the directory being read-only leaves the file it runs
// in the workspace, the payload's to rewrite.
func (g *guard) hookLinks(dir string) {
	w := follow(dir)
	if w.canon == "" {
		return
	}
	ents, err := os.ReadDir(w.canon)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(w.canon, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			g.target(p, "git runs the hook its symlink leads to")
		case e.Type().IsRegular():
			if fi, err := os.Lstat(p); err == nil && links(fi) > 1 {
				g.warnf("%s has %d hard links: a link to it where the sandbox may write changes the hook host git runs; it is not protected", p, links(fi))
			}
		}
	}
}

// resolve makes candidate paths absolute: "~/" from each home, relative
// ones from each base.
func (g *guard) resolve(vals, bases []string) []string {
	var out []string
	for _, v := range vals {
		switch {
		case v == "~" || strings.HasPrefix(v, "~/"):
			for _, h := range g.in.Homes {
				out = append(out, strings.TrimSuffix(h, "/")+strings.TrimPrefix(v, "~"))
			}
		case strings.HasPrefix(v, "~"):
			// ~user: another user's home, never the workspace's to write.
		case filepath.IsAbs(v):
			out = append(out, v)
		default:
			// Joined as git joins it, not cleaned: the kernel takes ".."
			// after a symlink from the symlink's target.
			for _, b := range bases {
				out = append(out, strings.TrimSuffix(b, "/")+"/"+v)
			}
		}
	}
	return out
}

// target protects a path git will run or read, resolved as the kernel
// will resolve it for host git: what it leads to is read-only if it
// exists, else the first missing name on its way is kept absent (in the
// canonical directory that lacks it); the symlinks on the way are held,
// and a file where a directory is needed is read-only (replaced by a
// directory, it would lead to the payload's).
func (g *guard) target(p, why string) {
	w := follow(p)
	g.hold(w)
	switch {
	case w.err != nil:
		if g.writable(filepath.Clean(p)) {
			g.warnf("%s (%s) cannot be resolved: %v; it is not protected", p, why, errText(w.err))
		}
	case w.canon != "":
		g.readOnly(w.canon)
	case w.file != "":
		g.readOnly(w.file)
	default:
		g.keepAbsent(w.dir, w.name, why+": "+p)
	}
}

func (g *guard) allTrees() []string {
	out := make([]string, 0, len(g.trees))
	for t := range g.trees {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (g *guard) answer() *Protection {
	g.otherWorktrees()
	p := &Protection{Warnings: g.warn, Trees: g.indexes, Known: map[string]bool{}, Roots: outermost(g.in.Roots), Enclosing: g.encl}
	for _, m := range []map[string]bool{g.trees, g.bares} {
		for d := range m {
			p.Known[d] = true
		}
	}
	for d, c := range g.commons {
		p.Known[d] = true
		if !c.broken && g.writable(d) {
			p.Modules = append(p.Modules, filepath.Join(d, "modules"))
		}
	}
	sort.Strings(p.Modules)
	for d := range g.rw {
		p.Writable = append(p.Writable, d)
	}
	for l := range g.links {
		p.Links = append(p.Links, l)
	}
	sort.Strings(p.Links)
	for d := range g.held {
		if !g.holdsProtected(d) {
			p.Held = append(p.Held, d)
		}
	}
	sort.Strings(p.Held)
	for r := range g.ro {
		if !g.rw[r] {
			p.ReadOnly = append(p.ReadOnly, r)
		}
	}
	for _, a := range g.absent {
		if !exists(a.Path()) && g.writable(a.Dir) {
			p.Absent = append(p.Absent, a)
		}
	}
	sort.Strings(p.Writable)
	sort.Strings(p.ReadOnly)
	sort.Slice(p.Absent, func(i, j int) bool { return p.Absent[i].Path() < p.Absent[j].Path() })
	return p
}

// usableDotgit reports whether the .git in t is one git's discovery uses:
// a file or a directory, through symlinks. git passes over any other.
func usableDotgit(t string) bool {
	fi, err := os.Stat(filepath.Join(t, ".git"))
	return err == nil && (fi.Mode().IsRegular() || fi.IsDir())
}

// isGitDir reports whether dir looks like a git directory: a HEAD, and
// objects or (for a linked worktree's) a commondir.
func isGitDir(dir string) bool {
	return exists(filepath.Join(dir, "HEAD")) &&
		(exists(filepath.Join(dir, "objects")) || exists(filepath.Join(dir, "commondir")))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// readSmall reads a file git keeps small; a larger one is refused rather
// than read whole.
//
// Only a regular file is read: a named pipe the payload of an earlier run
// left where a file is expected (.gitmodules) would block the open or the
// read, and a device could be read forever.
func readSmall(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxFile)
	}
	return b, nil
}

const maxFile = 1 << 20

// errText is an error without the path it repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// within reports whether p is base or below it.
func within(p, base string) bool {
	return p == base || base == "/" || len(p) > len(base) && p[len(base)] == '/' && strings.HasPrefix(p, base)
}

// validModuleName reports whether git would use name as a submodule's
// directory under modules/ (it refuses names with a ".." component).
func validModuleName(name string) bool {
	if name == "" || filepath.IsAbs(name) {
		return false
	}
	for _, c := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == ".." {
			return false
		}
	}
	return true
}
