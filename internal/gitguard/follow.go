package gitguard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// way is how the kernel resolves a path git will use, as git hands it over
// (joined, never cleaned: "link/../x" goes through link's target): the
// symlinks followed, each at its canonical place, and where it ends.
// Exactly one of canon, file, missing name or err says how it ended.
type way struct {
	links []string // the symlinks followed, in order
	// passed are the directories entered and left again by "..": each
	// must stay a directory (a symlink there would lead ".." elsewhere).
	passed []string
	canon  string // the canonical path, when it resolves
	file   string // a non-directory met where a directory was needed
	dir    string // the canonical directory that lacks name
	name   string // the first missing name
	err    error
}

// maxLinks is how many symlinks the kernel follows in one path.
const maxLinks = 40

// follow resolves p, absolute, as the kernel would.
func follow(p string) way {
	var w way
	cur := "/"
	rest := strings.Split(p, "/")
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if cur != "/" {
				w.passed = append(w.passed, cur)
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			w.dir, w.name = cur, c
			return w
		case err != nil:
			w.err = err
			return w
		case fi.Mode()&fs.ModeSymlink != 0:
			if len(w.links) == maxLinks {
				w.err = &fs.PathError{Op: "resolve", Path: p, Err: syscall.ELOOP}
				return w
			}
			target, err := os.Readlink(next)
			if err != nil {
				w.err = err
				return w
			}
			w.links = append(w.links, next)
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
		case !fi.IsDir() && len(rest) > 0:
			// "file/x", "file/" and "file/.." all fail (ENOTDIR).
			w.file = next
			return w
		default:
			cur = next
		}
	}
	w.canon = cur
	return w
}

// hold asks the caller to hold what w's way goes through and the payload
// could replace or remove: the symlinks host git follows later, and the
// directories ".." leaves (a symlink put there would lead it elsewhere).
func (g *guard) hold(w way) {
	for _, l := range w.links {
		if g.writable(l) {
			g.links[l] = true
		}
	}
	for _, d := range w.passed {
		if g.writable(d) {
			g.held[d] = true
		}
	}
}

// holdsProtected reports whether d is, or holds, a path made read-only, a
// name kept absent or a symlink held: the caller keeps such a directory in
// place already.
func (g *guard) holdsProtected(d string) bool {
	for _, m := range []map[string]bool{g.ro, g.links} {
		for p := range m {
			if within(p, d) {
				return true
			}
		}
	}
	for p := range g.absent {
		if within(p, d) {
			return true
		}
	}
	return false
}
