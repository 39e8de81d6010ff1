package gitguard

import (
	"io/fs"
	"path/filepath"
	"strings"
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

func (l *listing) layout() layout {
	switch {
	case !l.hasDotgit:
		return plain
	case l.dotgit.IsRegular():
		return dotgitFile
	}
	return dotgitDir
}

// gitDirNames says whether the names of a git directory are there: HEAD,
// and objects or a commondir (git's own test also wants refs and checks
// HEAD's content; looser here, so that more is protected, never less).
func (l *listing) gitDirNames() bool { return l.head && (l.objects || l.commondir) }

// descend says which subdirectories of a directory the walk reads: all but
// the inside of git directories (the .git, or the directory itself when it
// has all git looks for in one and no .git), which the protection of each
// repository covers (its modules/ and worktrees/ included) and where
// nobody stands to run git.
func (l *listing) descend() []string {
	if !l.hasDotgit && l.head && (l.objects && l.refs || l.commondir) {
		return nil
	}
	return l.dirs
}

// add records one entry of a directory: its name and type (only the type
// bits of a FileMode).
func (l *listing) add(name string, typ fs.FileMode) {
	// Case is ignored: on a case-insensitive directory (ext4's casefold,
	// vfat) git's HEAD is found as head. Where case matters, a .GIT
	// or a head is checked by name afterwards, and passed over.
	switch {
	case named(name, ".git"):
		l.hasDotgit, l.dotgit = true, typ
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

// walk reads root and the directories below it breadth first, at most
// limit of them, and calls visit with each directory's listing. A
// directory that cannot be read is passed over. It returns how many were
// read and the first directory left unread when the limit stopped it.
func walk(root string, limit int, visit func(dir string, l *listing)) (int, string) {
	r := newReader()
	queue := []string{root}
	n := 0
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if n >= limit {
			return n, dir
		}
		n++
		l, err := r.read(dir)
		if err != nil {
			continue
		}
		visit(dir, l)
		for _, d := range l.descend() {
			queue = append(queue, filepath.Join(dir, d))
		}
	}
	return n, ""
}
