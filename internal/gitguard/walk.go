package gitguard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// walkLimit bounds the directories one walk of a writable root reads: a
// workspace larger than that is protected in its upper levels (the walk
// is breadth first) and the caller is told where it stopped.
const walkLimit = 500_000

// listing is what a directory's own entries tell git's discovery: whether
// it has a .git (and of which type), the names that make a directory a git
// directory, and its subdirectories. It comes from the directory alone
// (names and types, as getdents gives them), with no stat of any entry
// whose type the file system reports.
type listing struct {
	dotgit                         fs.FileMode // type of .git; valid when hasDotgit
	hasDotgit                      bool
	head, objects, refs, commondir bool
	dirs                           []string // names of subdirectories, symlinks excluded
	// folded are the subdirectories named .git in another case: git's
	// own .git on a case-insensitive directory, an ordinary directory
	// (which the payload may name so) where case matters.
	folded []string
}

// layout is what git's discovery finds in a directory, from its listing.
type layout int

const (
	// plain: no .git, and not a git directory.
	plain layout = iota
	// dotgitFile: a .git file (a linked worktree, a submodule, a separate
	// git directory); git uses what it names or stops with an error.
	dotgitFile
	// dotgitDir: a .git directory (or symlink, or anything but a file);
	// git uses it if it is a valid git directory, else looks on.
	dotgitDir
)

// gitDirNames says whether the names of a git directory are there: HEAD,
// and objects or a commondir (git's own test also wants refs and checks
// HEAD's content; looser here, so that more is protected, never less).
func (l *listing) gitDirNames() bool { return l.head && (l.objects || l.commondir) }

// descend says which subdirectories of dir, whose listing l is, the walk
// reads: all but the inside of git directories (the .git, or the
// directory itself when it has all git looks for in one and no .git),
// which the protection of each repository covers (its modules/ and
// worktrees/ included) and where nobody stands to run git.
//
// The names the listing matched ignoring case are looked up as git looks
// them up before a directory is passed over: where case matters, a Head
// with Objects and Refs, or a .GIT, is an ordinary directory to host git,
// in which the payload could hide a repository from the walk after the
// run.
func (l *listing) descend(dir string) []string {
	if !l.hasDotgit && l.head && (l.objects && l.refs || l.commondir) && gitDirAt(dir) {
		return nil
	}
	out := l.dirs
	for _, n := range l.folded {
		if !sameFile(filepath.Join(dir, ".git"), filepath.Join(dir, n)) {
			out = append(out[:len(out):len(out)], n)
		}
	}
	return out
}

// gitDirAt reports whether dir has, by the names git looks up, all git
// takes a git directory for (a HEAD, with objects and refs, or with a
// commondir).
func gitDirAt(dir string) bool {
	return exists(filepath.Join(dir, "HEAD")) &&
		(exists(filepath.Join(dir, "objects")) && exists(filepath.Join(dir, "refs")) || exists(filepath.Join(dir, "commondir")))
}

// sameFile reports whether a and b are one file, not following a last
// symlink.
func sameFile(a, b string) bool {
	fa, err := os.Lstat(a)
	if err != nil {
		return false
	}
	fb, err := os.Lstat(b)
	return err == nil && os.SameFile(fa, fb)
}

// add records one entry of a directory: its name and type (only the type
// bits of a FileMode).
func (l *listing) add(name string, typ fs.FileMode) {
	// Case is ignored: on a case-insensitive directory (ext4's casefold,
	// vfat) git's HEAD is found as head. Where case matters, a .GIT
	// or a head is checked by name afterwards: passed over as git's,
	// looked into as a directory (see descend).
	switch {
	case named(name, ".git"):
		l.hasDotgit, l.dotgit = true, typ
		if name != ".git" && typ.IsDir() {
			l.folded = append(l.folded, name)
		}
		return
	case named(name, "HEAD"):
		l.head = true
	case named(name, "objects"):
		l.objects = true
	case named(name, "refs"):
		l.refs = true
	case named(name, "commondir"):
		l.commondir = true
	}
	if typ.IsDir() {
		l.dirs = append(l.dirs, name)
	}
}

func named(name, want string) bool { return len(name) == len(want) && strings.EqualFold(name, want) }

// walkers is how many directories a walk reads at once: the reads are
// system calls and, when the directories are not cached, disk reads, which
// several threads overlap.
const walkers = 4

// walk reads root and the directories below it breadth first, level by
// level, at most limit of them, and calls visit with each directory's
// listing, in order, from the calling goroutine. A directory that cannot
// be read is passed over, and to failed when failed is not nil. It
// returns how many were read and the first directory left unread when the
// limit stopped it.
func walk(root string, limit int, visit func(dir string, l *listing), failed func(dir string, err error)) (int, string) {
	level := []string{root}
	n := 0
	for len(level) > 0 {
		stopped := ""
		if n+len(level) > limit {
			stopped = level[limit-n]
			level = level[:limit-n]
		}
		n += len(level)
		listings, errs := readAll(level)
		var next []string
		for i, l := range listings {
			if l == nil {
				if failed != nil {
					failed(level[i], errs[i])
				}
				continue
			}
			visit(level[i], l)
			for _, d := range l.descend(level[i]) {
				next = append(next, filepath.Join(level[i], d))
			}
		}
		if stopped != "" {
			return n, stopped
		}
		level = next
	}
	return n, ""
}

// readAll reads the listings of dirs, walkers at a time; nil, and the
// error, for one that cannot be read.
func readAll(dirs []string) ([]*listing, []error) {
	out, errs := make([]*listing, len(dirs)), make([]error, len(dirs))
	workers := min(walkers, len(dirs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newReader()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(dirs) {
					return
				}
				out[i], errs[i] = r.read(dirs[i])
			}
		}()
	}
	wg.Wait()
	return out, errs
}
