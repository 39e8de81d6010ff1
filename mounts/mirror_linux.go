package mounts

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mirror covers the directory dir (shown at at, mounted) with a tmpfs
// that holds each of its entries, bound back from dir with their mounts
// and attributes (a symlink is made again with its target), and the new
// entries extra, then read-only: the mount points the directory lacks,
// made without writing to it. It returns the tmpfs, now at at. root says
// dir is the root of the view, which the mirror then is.
//
// The entries are cloned from dir after it is covered: a lookup that
// starts at dir's descriptor does not enter what is mounted on dir itself.
func (b *builder) mirror(at string, dir int, extra []Mountpoint, root bool) (int, error) {
	list, err := unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("mirror %s: open: %w", at, err)
	}
	f := os.NewFile(uintptr(list), at)
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return -1, fmt.Errorf("mirror %s: read: %w", at, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(dir, &st); err != nil {
		return -1, fmt.Errorf("mirror %s: fstat: %w", at, err)
	}
	tmp, err := newFS("tmpfs", map[string]string{"mode": "755", "size": "1m"}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("mirror %s: %w", at, err)
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(tmp)
		}
	}()
	var bound []string
	var links []Mountpoint
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.Type()&os.ModeSymlink != 0:
			target, err := readlinkat(dir, name)
			if err != nil {
				return -1, fmt.Errorf("mirror %s: readlink %s: %w", at, name, err)
			}
			links = append(links, Mountpoint{Rel: name, Link: target})
			continue
		case e.IsDir():
			err = unix.Mkdirat(tmp, name, 0o755)
		default:
			err = makeMountpoint(tmp, Mountpoint{Rel: name})
		}
		if err != nil {
			return -1, fmt.Errorf("mirror %s: entry %s: %w", at, name, err)
		}
		bound = append(bound, name)
	}
	// The new entries, then every symlink: a link made first could
	// redirect the creation of an entry.
	for _, mp := range append(extra, links...) {
		if err := makeMountpoint(tmp, mp); err != nil && !(mp.Link != "" && errors.Is(err, unix.EEXIST)) {
			return -1, fmt.Errorf("mount point %s/%s: %w", trimRoot(at), mp.Rel, err)
		}
	}
	if err := chmodRoot(tmp, st.Mode&0o7777); err != nil {
		return -1, fmt.Errorf("mirror %s: chmod: %w", at, err)
	}
	if err := b.attrs.set(tmp, unix.MOUNT_ATTR_RDONLY, false, false); err != nil {
		return -1, fmt.Errorf("mirror %s: mount_setattr ro: %w", at, err)
	}
	if err := b.attach(tmp, dir, at); err != nil {
		return -1, fmt.Errorf("mirror %s: %w", at, err)
	}
	for _, name := range bound {
		tree, err := unix.OpenTree(dir, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return -1, fmt.Errorf("mirror %s: open_tree %s: %w", at, name, err)
		}
		err = unix.MoveMount(tree, "", tmp, name, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(tree)
		if err != nil {
			return -1, fmt.Errorf("mirror %s: move_mount %s: %w", at, name, err)
		}
	}
	ok = true
	return tmp, nil
}

func readlinkat(dir int, name string) (string, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(dir, name, buf)
		if err != nil {
			return "", err
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		buf = make([]byte, 2*len(buf))
	}
}

func trimRoot(p string) string {
	if p == "/" {
		return ""
	}
	return p
}
