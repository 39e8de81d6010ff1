package mounts

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// devNodes are the host device nodes bound into the sandbox's /dev; nothing
// else of the host's /dev is reachable.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

var devLinks = [][2]string{
	{"ptmx", "pts/ptmx"},
	{"fd", "/proc/self/fd"},
	{"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"},
}

// cloneDevNodes clones the host's device nodes (from the old root, as all
// sources). Each must be a character device.
func (b *builder) cloneDevNodes() ([]int, error) {
	trees := make([]int, 0, len(devNodes))
	for _, name := range devNodes {
		src := "/dev/" + name
		fd, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			closeAll(trees)
			return nil, fmt.Errorf("open_tree %s: %w", src, err)
		}
		trees = append(trees, fd)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			closeAll(trees)
			return nil, fmt.Errorf("fstat %s: %w", src, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFCHR {
			closeAll(trees)
			return nil, fmt.Errorf("bind %s: not a character device on the host", src)
		}
		if err := b.attrs.set(fd, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, false, false); err != nil {
			closeAll(trees)
			return nil, fmt.Errorf("mount_setattr %s: %w", src, err)
		}
	}
	return trees, nil
}

// mountDev builds /dev: a tmpfs holding the cloned nodes, a new devpts
// instance, a tmpfs shm of shmSize bytes (0: the kernel's default), the
// usual links and the extra ones (console), then made read-only itself.
func (b *builder) mountDev(at string, extra []Mountpoint, target int, shmSize uint64) error {
	nodes, err := b.cloneDevNodes()
	if err != nil {
		return err
	}
	defer closeAll(nodes)
	dev, err := newFS("tmpfs", map[string]string{"mode": "0755", "size": "64k"},
		unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	defer unix.Close(dev)
	for _, name := range devNodes {
		if err := makeMountpoint(dev, Mountpoint{Rel: name}); err != nil {
			return fmt.Errorf("create %s/%s: %w", at, name, err)
		}
	}
	for _, name := range []string{"pts", "shm"} {
		if err := makeMountpoint(dev, Mountpoint{Rel: name, Dir: true}); err != nil {
			return fmt.Errorf("create %s/%s: %w", at, name, err)
		}
	}
	for _, l := range devLinks {
		if err := unix.Symlinkat(l[1], dev, l[0]); err != nil {
			return fmt.Errorf("symlink %s/%s: %w", at, l[0], err)
		}
	}
	for _, mp := range extra {
		if mp.Link == "" {
			return fmt.Errorf("%s/%s: only links can be added to /dev", at, mp.Rel)
		}
		if err := makeMountpoint(dev, mp); err != nil {
			return fmt.Errorf("symlink %s/%s: %w", at, mp.Rel, err)
		}
	}
	if err := b.attach(dev, target, at); err != nil {
		return err
	}
	for i, name := range devNodes {
		if err := b.attachAt(nodes[i], dev, name, at+"/"+name); err != nil {
			return err
		}
	}
	pts, err := newFS("devpts", map[string]string{"ptmxmode": "0666", "mode": "0620"},
		unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("%s/pts: %w", at, err)
	}
	defer unix.Close(pts)
	if err := b.attachAt(pts, dev, "pts", at+"/pts"); err != nil {
		return err
	}
	shmOptions := map[string]string{"mode": "1777"}
	if shmSize > 0 {
		shmOptions["size"] = fmt.Sprint(shmSize)
	}
	shm, err := newFS("tmpfs", shmOptions, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return fmt.Errorf("%s/shm: %w", at, err)
	}
	defer unix.Close(shm)
	if err := b.attachAt(shm, dev, "shm", at+"/shm"); err != nil {
		return err
	}
	if err := b.attrs.set(dev, unix.MOUNT_ATTR_RDONLY, false, true); err != nil {
		return fmt.Errorf("mount_setattr ro on %s: %w", at, err)
	}
	return nil
}
