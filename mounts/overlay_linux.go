package mounts

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// mountOverlay mounts op's overlay on target (-1: on the process root, as
// the root of the view) and returns it. The lower layers are op.Source
// and op.Lower, each opened without following a symlink and checked
// against its recorded identity (the kernel takes none with mounts below
// it: from a user namespace, they hide what the sandbox may not uncover).
// The upper and work directories are op.UpperDir and op.WorkDir, or in
// op.Upper (checked against op.UpperID), or in a tmpfs of their own,
// mounted at the target first, under the overlay: the kernel takes layers
// only from mounts in the caller's mount namespace. A read-only op has no
// upper layer and is mounted read-only. The layers go to the kernel as
// /proc/self/fd paths, so no name is looked up again (and none needs
// escaping). In a user namespace overlayfs keeps its metadata in
// user.overlay.* attributes (userxattr) and makes whiteouts as 0:0
// character devices.
func (b *builder) mountOverlay(op Op, target int) (int, error) {
	lowers := append([]Layer{{Path: op.Source, ID: op.ID}}, op.Lower...)
	var lowerFDs []string
	var st unix.Stat_t
	for i, l := range lowers {
		fd, lst, err := openLayer(op.Path, l)
		if err != nil {
			return -1, err
		}
		defer unix.Close(fd)
		if i == 0 {
			st = lst
		}
		lowerFDs = append(lowerFDs, fmt.Sprintf("/proc/self/fd/%d", fd))
	}
	if op.ReadOnly && (len(lowers) < 2 || len(op.Mountpoints) > 0) {
		return -1, fmt.Errorf("overlay %s: a read-only overlay needs two lower layers and takes no mount points", op.Path)
	}
	upper, work, under, err := b.overlayDirs(op, target, st)
	if err != nil {
		return -1, err
	}
	for _, fd := range []int{upper, work, under} {
		if fd >= 0 {
			defer unix.Close(fd)
		}
	}
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("overlay %s: fsopen: %w", op.Path, err)
	}
	defer unix.Close(fs)
	config := [][2]string{{"source", "overlay"}, {"lowerdir", strings.Join(lowerFDs, ":")}}
	if upper >= 0 {
		config = append(config, [2]string{"upperdir", fmt.Sprintf("/proc/self/fd/%d", upper)},
			[2]string{"workdir", fmt.Sprintf("/proc/self/fd/%d", work)})
	}
	for _, kv := range config {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return -1, fmt.Errorf("overlay %s: %s: %w", op.Path, kv[0], err)
		}
	}
	if err := unix.FsconfigSetFlag(fs, "userxattr"); err != nil {
		return -1, fmt.Errorf("overlay %s: userxattr: %w", op.Path, err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, overlayCreateError(op, err)
	}
	attrs := uint32(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
	if op.ReadOnly {
		attrs |= unix.MOUNT_ATTR_RDONLY
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, int(attrs))
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

// overlayCreateError explains why the kernel refused an overlay.
func overlayCreateError(op Op, err error) error {
	switch {
	case errors.Is(err, unix.EINVAL) && op.UpperDir.Path != "":
		return fmt.Errorf("overlay %s of %s: %w (is something mounted below a layer, or are the upper and work directories on different file systems?)", op.Path, op.Source, err)
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("overlay %s of %s: %w (is something mounted below it? The kernel takes no lower layer with mounts below it in a user namespace)", op.Path, op.Source, err)
	case errors.Is(err, unix.ELOOP):
		return fmt.Errorf("overlay %s of %s: %w (overlay directories may not overlap)", op.Path, op.Source, err)
	}
	return fmt.Errorf("overlay %s of %s: %w", op.Path, op.Source, err)
}

// openLayer opens an overlay's host directory l without following a
// symlink, checked against its recorded identity.
func openLayer(dest string, l Layer) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := OpenNoSymlinks(unix.AT_FDCWD, l.Path, false, false)
	if err != nil {
		return -1, st, fmt.Errorf("overlay %s: open %s: %w", dest, l.Path, explainResolve(err))
	}
	if err := checkIdentity(fd, l.Path, l.ID); err != nil {
		unix.Close(fd)
		return -1, st, err
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, fmt.Errorf("overlay %s: fstat %s: %w", dest, l.Path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		return -1, st, fmt.Errorf("overlay %s: %s is not a directory", dest, l.Path)
	}
	return fd, st, nil
}

// overlayDirs opens op's upper and work directories (-1, -1 for a
// read-only overlay, which has none); under is the tmpfs of private ones
// (see overlayLayers), -1 otherwise.
func (b *builder) overlayDirs(op Op, target int, lower unix.Stat_t) (upper, work, under int, err error) {
	switch {
	case op.ReadOnly:
		return -1, -1, -1, nil
	case op.UpperDir.Path != "":
		if upper, _, err = openLayer(op.Path, op.UpperDir); err != nil {
			return -1, -1, -1, err
		}
		if work, _, err = openLayer(op.Path, op.WorkDir); err != nil {
			unix.Close(upper)
			return -1, -1, -1, err
		}
		return upper, work, -1, nil
	}
	layers, under, err := b.overlayLayers(op, target, lower)
	if err != nil {
		return -1, -1, -1, err
	}
	defer unix.Close(layers)
	closeUnder := func() {
		if under >= 0 {
			unix.Close(under)
		}
	}
	upper, err = unix.Openat(layers, "upper", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		closeUnder()
		return -1, -1, -1, fmt.Errorf("overlay %s: upper directory: %w", op.Path, err)
	}
	work, err = unix.Openat(layers, "work", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(upper)
		closeUnder()
		return -1, -1, -1, fmt.Errorf("overlay %s: work directory: %w", op.Path, err)
	}
	return upper, work, under, nil
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
