package mounts

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrProcRefused is the kernel refusing a fresh procfs because the /proc
// the builder sees is not fully visible (a container runtime's masks).
var ErrProcRefused = errors.New("procfs refused")

// bindHostProc binds the procfs at source (in the old root, as every
// source) onto at, read-only, nosuid, nodev and noexec on it and every
// submount, so that what a container runtime masked stays masked and
// nothing in it can be written.
func (b *builder) bindHostProc(source, at string, target int) error {
	return b.bindHostTree(source, at, target, unix.PROC_SUPER_MAGIC, "a procfs")
}

// bindHostTree binds the tree at source, whose filesystem must be of type
// magic, onto at, read-only, nosuid, nodev and noexec with its submounts.
func (b *builder) bindHostTree(source, at string, target int, magic int64, kind string) error {
	tree, err := unix.OpenTree(unix.AT_FDCWD, source, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", source, err)
	}
	defer unix.Close(tree)
	var fs unix.Statfs_t
	if err := unix.Fstatfs(tree, &fs); err != nil {
		return fmt.Errorf("statfs %s: %w", source, err)
	}
	if fs.Type != magic {
		return fmt.Errorf("bind %s: not %s (filesystem type %#x)", source, kind, fs.Type)
	}
	attr := uint64(unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC)
	if err := b.attrs.set(tree, attr, true, false); err != nil {
		return fmt.Errorf("mount_setattr %s: %w", source, err)
	}
	if err := b.attach(tree, target, at); err != nil {
		return fmt.Errorf("bind %s: %w", source, err)
	}
	return nil
}

// procReadOnly are the procfs entries through which a process could change
// the host (sysctls, sysrq, interrupt affinity, bus devices).
var procReadOnly = []string{"sys", "sysrq-trigger", "irq", "bus"}

// mountProc mounts a procfs of the calling process's PID namespace and,
// with protect, makes procReadOnly read-only.
func (b *builder) mountProc(at string, target int, protect bool) error {
	proc, err := newFS("proc", nil, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("mount proc on %s: %w (%w: the host's /proc is partly masked or over-mounted, as when nested in a container: the kernel refuses a new procfs then)", at, err, ErrProcRefused)
		}
		return fmt.Errorf("mount proc on %s: %w", at, err)
	}
	defer unix.Close(proc)
	if err := b.attach(proc, target, at); err != nil {
		return err
	}
	if !protect {
		return nil
	}
	for _, name := range procReadOnly {
		tree, err := unix.OpenTree(proc, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("open_tree %s/%s: %w", at, name, err)
		}
		err = b.attrs.set(tree, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, true, false)
		if err == nil {
			err = b.attachAt(tree, proc, name, at+"/"+name)
		}
		unix.Close(tree)
		if err != nil {
			return fmt.Errorf("read-only bind %s/%s: %w", at, name, err)
		}
	}
	return nil
}

// TryProc creates a procfs of the caller's PID namespace and drops it,
// which is what the kernel refuses where the /proc in view is masked. The
// caller must hold CAP_SYS_ADMIN in the user namespace that owns its PID
// and mount namespaces.
func TryProc() error {
	proc, err := newFS("proc", nil, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("%w (%w: the /proc in view is partly masked or over-mounted, as in a container: the kernel refuses a new procfs then)", err, ErrProcRefused)
		}
		return err
	}
	return unix.Close(proc)
}
