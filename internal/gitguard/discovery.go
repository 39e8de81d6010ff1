package gitguard

import (
	"os"
	"path/filepath"
	"sort"
)

// Host git finds a repository by looking, from the directory it starts in
// up to the file system's top (or GIT_CEILING_DIRECTORIES), in each
// directory D: at D/.git, a file naming a git directory (which git then
// uses, or stops with an error) or a git directory; then at D itself, as a
// bare repository. A git directory is one with a valid HEAD and, in it or
// in the directory its commondir names, objects/ and refs/.
//
// A repository's own git directory cannot be kept valid (git writes its
// HEAD, and the payload may write garbage there): once it is not, git
// looks on, at the work tree itself and then at each directory above. So
// the directories where the user stands to use a repository, and those
// git's discovery reaches from there, are kept from becoming repositories
// of the payload's.

// discovery is what a directory holds that git's discovery looks at.
type discovery struct {
	dotgit            layout // the .git there
	gitDir            bool   // the directory is itself a git directory
	head              bool   // it has a HEAD
	objects, commonID bool   // it has objects, a commondir
}

// guardNames says what must stay absent in a directory, and what that
// exists must be read-only, so that git's discovery finds there no other
// repository than it finds now: no new .git where there is none, and no
// HEAD that would make the directory itself a git directory. A .git file
// (read-only, as every one found) ends the discovery: git uses the git
// directory it names or stops. A git directory's own HEAD is git's to
// write and its other names are protected with it.
func guardNames(d discovery) (absent, readOnly []string) {
	switch d.dotgit {
	case dotgitFile:
		return nil, nil
	case plain:
		absent = append(absent, ".git")
	}
	switch {
	case d.gitDir:
	case !d.head:
		absent = append(absent, "HEAD")
	default:
		// A HEAD of the project's: with objects/ (or a commondir) next to
		// it the directory would be a git directory.
		readOnly = append(readOnly, "HEAD")
		if !d.objects {
			absent = append(absent, "objects")
		}
		if !d.commonID {
			absent = append(absent, "commondir")
		}
	}
	return absent, readOnly
}

var guardWhy = map[string]string{
	".git":      "host git in this directory would use a repository the sandbox made",
	"HEAD":      "host git would take this directory for a git directory the sandbox made",
	"objects":   "host git would take this directory for a git directory the sandbox made",
	"commondir": "host git would take this directory for a git directory the sandbox made",
}

// discoveryAt reads what dir holds for git's discovery.
func discoveryAt(dir string) discovery {
	d := discovery{gitDir: isGitDir(dir), head: exists(filepath.Join(dir, "HEAD")),
		objects: exists(filepath.Join(dir, "objects")), commonID: exists(filepath.Join(dir, "commondir"))}
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		d.dotgit = dotgitDir
		if fi.Mode().IsRegular() {
			d.dotgit = dotgitFile
		}
	}
	return d
}

// guardDiscovery guards the writable roots, every repository's work tree
// or bare directory found, each directory above them (git's discovery
// reaches those when a repository's git directory is broken), and each
// .git directory (for git started inside it).
func (g *guard) guardDiscovery() {
	dirs := map[string]bool{}
	up := func(d string) {
		for ; !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			if d == "/" || d == "." {
				return
			}
		}
	}
	for _, r := range g.in.Roots {
		up(r)
	}
	for t := range g.trees {
		up(t)
		if fi, err := os.Lstat(filepath.Join(t, ".git")); err == nil && fi.IsDir() {
			dirs[filepath.Join(t, ".git")] = true
		}
	}
	for b := range g.bares {
		up(b)
	}
	for d := range dirs {
		if !g.writable(d) {
			continue
		}
		absent, readOnly := guardNames(discoveryAt(d))
		for _, n := range absent {
			g.keepAbsent(d, n, guardWhy[n])
		}
		for _, n := range readOnly {
			g.readOnly(filepath.Join(d, n))
		}
	}
}

// outermost are the roots that lie in no other: one walk each.
func outermost(roots []string) []string {
	sorted := append([]string{}, roots...)
	sort.Strings(sorted)
	var out []string
	for _, r := range sorted {
		if len(out) > 0 && within(r, out[len(out)-1]) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Made lists the repositories under roots that are not among known: work
// trees (a .git git uses: a file or a directory) and git directories of
// their own, found as
// the walk at the start finds them. It also says where a walk stopped at
// its bound, if one did, and which directories it could not read that the
// payload could have made so (see mayHide): a repository there or below
// would go unnamed.
func Made(roots []string, known map[string]bool) (made, stopped []string, unread []Unread) {
	for _, r := range outermost(roots) {
		_, s := walk(r, walkLimit, func(dir string, l *listing) {
			if known[dir] {
				return
			}
			if l.hasDotgit && usableDotgit(dir) || l.gitDirNames() && isGitDir(dir) {
				made = append(made, dir)
			}
		}, func(dir string, err error) {
			if mayHide(dir) {
				unread = append(unread, Unread{Dir: dir, Err: err})
			}
		})
		if s != "" {
			stopped = append(stopped, s)
		}
	}
	sort.Strings(made)
	return made, stopped, unread
}

// Unread is a directory a walk could not read, and why.
type Unread struct {
	Dir string
	Err error
}

// MadeModules lists the git directories under the modules/ directories
// dirs that are not among known: a git directory the payload made for a
// submodule, which host git's `submodule update --init` adopts, with its
// configuration and hooks, for a submodule of that name.
func MadeModules(dirs []string, known map[string]bool) []string {
	var out []string
	var look func(dir string, depth int)
	look = func(dir string, depth int) {
		if depth > maxDepth {
			return
		}
		for _, m := range subdirs(dir) {
			switch {
			case !isGitDir(m):
				look(m, depth+1)
			case !known[m]:
				out = append(out, m)
			}
		}
	}
	for _, d := range dirs {
		look(d, 0)
	}
	sort.Strings(out)
	return out
}
