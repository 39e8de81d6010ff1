package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/mountinfo"
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
	walk("/", p, true, func(l mounts.Link) { links = append(links, l) })
	return links
}

// PathInRoot is where p leads inside a sandbox whose root is the host
// directory root: each symlink on the way followed as the sandbox would
// follow it (an absolute target from root), missing components taken as
// they are, and after 40 links the rest taken as it is.
func PathInRoot(root, p string) string {
	return walk(root, p, false, func(mounts.Link) {})
}

// walk resolves the absolute path p inside the host directory root as the
// sandbox would, telling met each symlink on the way (its path inside,
// target and identity) and returning where p leads. A component that
// cannot be read ends the walk where stop says so, else it is taken as it
// is; after 40 links the walk ends (stop) or follows no more.
func walk(root, p string, stop bool, met func(mounts.Link)) string {
	cur := "/"
	rest := strings.Split(p, "/")
	for hops := 0; len(rest) > 0; {
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
		fi, err := os.Lstat(filepath.Join(root, next))
		var target string
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, err = os.Readlink(filepath.Join(root, next))
		}
		switch {
		case err != nil && stop:
			return cur
		case err != nil, fi.Mode()&os.ModeSymlink == 0, hops >= 40:
			cur = next
			continue
		}
		hops++
		met(mounts.Link{Path: next, Target: target, ID: Identity(fi)})
		if stop && hops == 40 {
			return cur
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur
}

// KernelMounts lists the caller's mounts of kernel filesystems that a
// shown host tree could carry into the sandbox (mounts.KernelFS), leaving
// out those under the places the plan builds afresh but a whole procfs or
// sysfs (mounts.Reveals), the host's own /proc and /sys among them. A mount table that
// cannot be read is an error: the plan would not know what to hide.
func KernelMounts() ([]mounts.KernelMount, error) {
	entries, err := mountinfo.Self()
	if err != nil {
		return nil, err
	}
	byID := make(map[int]mountinfo.Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	var out []mounts.KernelMount
	for _, e := range entries {
		built := mounts.Reserved(e.MountPoint) != ""
		reveals := mounts.Reveals(e.FSType, e.Root)
		if !mounts.KernelFS(e.FSType) || (built && !reveals) {
			continue
		}
		dir := true
		if fi, err := os.Lstat(e.MountPoint); err == nil {
			dir = fi.IsDir()
		}
		out = append(out, mounts.KernelMount{Path: e.MountPoint, Dir: dir, Reveals: reveals, Built: built,
			Unreachable: reveals && !reachable(e, byID)})
	}
	return out, nil
}

// reachable says whether the path of e's mount point leads to e, or to a
// mount stacked on it there: not to a mount over a directory above it.
func reachable(e mountinfo.Entry, byID map[int]mountinfo.Entry) bool {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, e.MountPoint, unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, unix.STATX_MNT_ID, &stx); err != nil {
		return false
	}
	id := int(stx.Mnt_id)
	for id != e.ID {
		m, ok := byID[id]
		if !ok || m.MountPoint != e.MountPoint {
			return false
		}
		id = m.Parent
	}
	return true
}

// unreachableShown refuses, for a sandbox of the host's root whose payload
// may make namespaces, a whole procfs or sysfs that the host hides under a
// later mount (Unreachable) in a tree the plan clones (the root, a bind):
// nsrun can put nothing on its copy, and the kernel lets a user namespace
// mount a procfs of its own through it, with its flags (a writable one's
// /proc/sys is the host's).
func unreachableShown(mi *mounts.Input) error {
	root := mi.Root
	if root == "" {
		root = "/"
	}
	for _, km := range mi.KernelMounts {
		if !km.Unreachable {
			continue
		}
		shown := paths.Within(km.Path, root)
		for _, r := range mi.Rules {
			src := r.Source
			if src == "" {
				src = r.Path
			}
			shown = shown || ((r.Access == mounts.ReadOnly || r.Access == mounts.ReadWrite) && paths.Within(km.Path, src))
		}
		if shown {
			return &Error{Op: "cover the host's kernel filesystems", Err: errs.New("a procfs or sysfs is mounted at %s under a later mount that hides it from every path, where nsrun cannot cover it; with %s a payload of the host's root could mount a procfs of its own through it: unmount it, or leave %s out", km.Path, errs.AllowUserns, errs.AllowUserns)}
		}
	}
	return nil
}
