package mounts

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// mountOverlay mounts op's overlay on target (-1: on the process root, as
// the root of the view) and returns it. The lower layer is op.Source,
// opened without following a symlink and checked against op.ID (the
// kernel takes none with mounts below it: from a user namespace, they
// hide what the sandbox may not uncover); the upper and work directories
// are in op.Upper (checked against op.UpperID) or in a tmpfs of their
// own, mounted at the target first, under the overlay: the kernel takes
// layers only from mounts in the caller's mount namespace. The layers go
// to the kernel as /proc/self/fd paths, so no name is looked up again. In
// a user namespace overlayfs keeps its metadata in user.overlay.*
// attributes (userxattr) and makes whiteouts as 0:0 character devices.
func (b *builder) mountOverlay(op Op, target int) (int, error) {
	lower, err := OpenNoSymlinks(unix.AT_FDCWD, op.Source, false, false)
	if err != nil {
		return -1, fmt.Errorf("overlay %s: open %s: %w", op.Path, op.Source, explainResolve(err))
	}
	defer unix.Close(lower)
	if err := checkIdentity(lower, op.Source, op.ID); err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(lower, &st); err != nil {
		return -1, fmt.Errorf("overlay %s: fstat %s: %w", op.Path, op.Source, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return -1, fmt.Errorf("overlay %s: %s is not a directory", op.Path, op.Source)
	}
	layers, under, err := b.overlayLayers(op, target, st)
	if err != nil {
		return -1, err
	}
	defer unix.Close(layers)
	if under >= 0 {
		defer unix.Close(under)
	}
	upper, err := unix.Openat(layers, "upper", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("overlay %s: upper directory: %w", op.Path, err)
	}
	defer unix.Close(upper)
	work, err := unix.Openat(layers, "work", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("overlay %s: work directory: %w", op.Path, err)
	}
	defer unix.Close(work)
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("overlay %s: fsopen: %w", op.Path, err)
	}
	defer unix.Close(fs)
	for _, kv := range [][2]string{
		{"source", "overlay"},
		{"lowerdir", fmt.Sprintf("/proc/self/fd/%d", lower)},
		{"upperdir", fmt.Sprintf("/proc/self/fd/%d", upper)},
		{"workdir", fmt.Sprintf("/proc/self/fd/%d", work)},
	} {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return -1, fmt.Errorf("overlay %s: %s: %w", op.Path, kv[0], err)
		}
	}
	if err := unix.FsconfigSetFlag(fs, "userxattr"); err != nil {
		return -1, fmt.Errorf("overlay %s: userxattr: %w", op.Path, err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		if errors.Is(err, unix.EINVAL) {
			return -1, fmt.Errorf("overlay %s of %s: %w (is something mounted below it? The kernel takes no lower layer with mounts below it in a user namespace)", op.Path, op.Source, err)
		}
		return -1, fmt.Errorf("overlay %s of %s: %w", op.Path, op.Source, err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("overlay %s: fsmount: %w", op.Path, err)
	}
	for _, mp := range op.Mountpoints {
		if err := makeMountpoint(mnt, mp); err != nil {
			unix.Close(mnt)
			return -1, fmt.Errorf("mount point %s/%s: %w", trimRoot(op.Path), mp.Rel, err)
		}
	}
	switch {
	case under >= 0:
		// On the tmpfs of its layers: attached at the target, it would go
		// under the tmpfs, which the kernel keeps on top.
		err = b.attach(mnt, under, op.Path)
		if target < 0 {
			b.stacked++ // the tmpfs, between the process root and this one
		}
	case target >= 0:
		err = b.attach(mnt, target, op.Path)
	default:
		err = unix.MoveMount(mnt, "", unix.AT_FDCWD, "/", unix.MOVE_MOUNT_F_EMPTY_PATH)
	}
	if err != nil {
		unix.Close(mnt)
		return -1, fmt.Errorf("overlay %s: %w", op.Path, err)
	}
	return mnt, nil
}

// overlayLayers opens the directory that holds an overlay's upper and work
// directories. For a private one it is a new tmpfs, mounted at target
// (-1: on the process root) and returned as under too, for the overlay to
// be mounted on; its upper directory takes the lower root's mode.
func (b *builder) overlayLayers(op Op, target int, lower unix.Stat_t) (layers, under int, err error) {
	if op.Upper != "" {
		dir, err := OpenNoSymlinks(unix.AT_FDCWD, op.Upper, false, false)
		if err != nil {
			return -1, -1, fmt.Errorf("overlay %s: open %s: %w", op.Path, op.Upper, explainResolve(err))
		}
		if err := checkIdentity(dir, op.Upper, op.UpperID); err != nil {
			unix.Close(dir)
			return -1, -1, err
		}
		return dir, -1, nil
	}
	options := map[string]string{"mode": "755"}
	if op.Size > 0 {
		options["size"] = fmt.Sprint(op.Size)
	}
	tmp, err := newFS("tmpfs", options, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, -1, fmt.Errorf("overlay %s: %w", op.Path, err)
	}
	for _, d := range []struct {
		name string
		mode uint32
	}{{"upper", lower.Mode & 0o7777}, {"work", 0o700}} {
		if err := unix.Mkdirat(tmp, d.name, 0o700); err != nil {
			unix.Close(tmp)
			return -1, -1, fmt.Errorf("overlay %s: %s directory: %w", op.Path, d.name, err)
		}
		if err := unix.Fchmodat(tmp, d.name, d.mode, 0); err != nil {
			unix.Close(tmp)
			return -1, -1, fmt.Errorf("overlay %s: %s directory: %w", op.Path, d.name, err)
		}
	}
	// The top directory keeps the lower one's owner where this user
	// namespace can give it (it maps that owner).
	_ = unix.Fchownat(tmp, "upper", int(lower.Uid), int(lower.Gid), unix.AT_SYMLINK_NOFOLLOW)
	if target >= 0 {
		err = unix.MoveMount(tmp, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
	} else {
		err = unix.MoveMount(tmp, "", unix.AT_FDCWD, "/", unix.MOVE_MOUNT_F_EMPTY_PATH)
	}
	if err != nil {
		unix.Close(tmp)
		return -1, -1, fmt.Errorf("overlay %s: mount its tmpfs: %w", op.Path, err)
	}
	under, err = unix.Dup(tmp)
	if err != nil {
		unix.Close(tmp)
		return -1, -1, err
	}
	return tmp, under, nil
}
