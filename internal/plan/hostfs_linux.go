package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// Identity is the device and inode of a stat result, whichever of the two
// stat types it carries (os.Lstat's, or paths.Canonical's fast path's).
func Identity(info os.FileInfo) mounts.Identity {
	switch st := info.Sys().(type) {
	case *syscall.Stat_t:
		return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
	case *unix.Stat_t:
		return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
	}
	return mounts.Identity{}
}

// LinkCount is the number of hard links of a stat result.
func LinkCount(info os.FileInfo) uint64 {
	switch st := info.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Nlink)
	case *unix.Stat_t:
		return uint64(st.Nlink)
	}
	return 0
}

// DirIdentity is the identity of a host directory the mount plan pins.
func DirIdentity(p string) (mounts.Identity, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return mounts.Identity{}, err
	}
	if !fi.IsDir() {
		return mounts.Identity{}, fmt.Errorf("is %s, not a directory", paths.FileKind(fi.Mode()))
	}
	id := Identity(fi)
	if id == (mounts.Identity{}) {
		return id, errors.New("cannot tell which file this is (no device and inode)")
	}
	return id, nil
}

// SymlinksAlong lists the symlinks met while resolving the absolute path
// p, in the order met (those in the targets of links included), each at
// its canonical place, with its target and identity: the sandbox recreates
// those its own filesystems would hide, and pins those a protective rule's
// path goes through. It stops at the first component it cannot read (the
// rule's own canonicalisation reports that) and after 40 links, as the
// kernel does.
func SymlinksAlong(p string) []mounts.Link {
	var links []mounts.Link
	cur := "/"
	rest := strings.Split(p, "/")
	for len(rest) > 0 && len(links) < 40 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return links
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			return links
		}
		links = append(links, mounts.Link{Path: next, Target: target, ID: Identity(fi)})
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return links
}
