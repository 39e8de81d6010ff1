package mounts

import (
	"fmt"

	"golang.org/x/sys/unix"
)

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

// cloneDevice clones the host device of d, opened without following a
// symlink and checked against d.ID, without nodev: it must be a character
// device, or a block device where d.Block says so.
func (b *builder) cloneDevice(d Node) (int, error) {
	fd, err := OpenNoSymlinks(unix.AT_FDCWD, d.Source, false, false)
	if err != nil {
		return -1, fmt.Errorf("dev %s: open: %w", d.Source, explainResolve(err))
	}
	defer unix.Close(fd)
	if err := checkIdentity(fd, d.Source, d.ID); err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return -1, fmt.Errorf("dev %s: fstat: %w", d.Source, err)
	}
	want := uint32(unix.S_IFCHR)
	if d.Block {
		want = unix.S_IFBLK
	}
	if st.Mode&unix.S_IFMT != want {
		return -1, fmt.Errorf("dev %s: not a %s device", d.Source, map[bool]string{true: "block", false: "character"}[d.Block])
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return -1, fmt.Errorf("dev %s: open_tree: %w", d.Source, err)
	}
	if err := b.attrs.set(tree, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, false, false); err != nil {
		unix.Close(tree)
		return -1, fmt.Errorf("dev %s: mount_setattr: %w", d.Source, err)
	}
	return tree, nil
}

// mountDev builds /dev: a tmpfs holding the cloned nodes and op's devices,
// a new devpts instance, a tmpfs shm of op.Size bytes (0: the kernel's
// default), the usual links and op's other mount points (console), then
// made read-only itself.
func (b *builder) mountDev(op Op, target int) error {
	at, extra, shmSize := op.Path, op.Mountpoints, op.Size
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
		if err := makeMountpoint(dev, mp); err != nil {
			return fmt.Errorf("create %s/%s: %w", at, mp.Rel, err)
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
	for _, d := range op.Devices {
		tree, err := b.cloneDevice(d)
		if err != nil {
			return err
		}
		err = b.attachAt(tree, dev, d.Path, at+"/"+d.Path)
		unix.Close(tree)
		if err != nil {
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
