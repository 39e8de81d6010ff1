package mounts

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/mountinfo"
)

// attrs applies mount attributes. With mount_setattr (5.12) a whole tree
// gets them in one call, even before it is attached. Without it, the
// attributes of a detached tree wait until it is attached and are then set
// by remounting each mount of the tree, found in /proc/self/mountinfo.
type attrs struct {
	remount bool        // no mount_setattr: remount instead
	root    int         // the new root, for finding submounts by path
	pending map[int]req // detached fd -> attributes to set once attached
}

type req struct {
	set       uint64
	recursive bool
}

// set gives fd's mount (and, if recursive, every mount below) the
// attributes in set. attached says whether fd is already in the mount tree.
func (a *attrs) set(fd int, set uint64, recursive, attached bool) error {
	if !a.remount {
		err := setattr(fd, set, recursive)
		if !errors.Is(err, unix.ENOSYS) {
			return err
		}
		a.remount = true
	}
	if !attached {
		if a.pending == nil {
			a.pending = map[int]req{}
		}
		r := a.pending[fd]
		a.pending[fd] = req{set: r.set | set, recursive: r.recursive || recursive}
		return nil
	}
	return a.remountTree(fd, req{set: set, recursive: recursive})
}

// moved applies what waited for fd to be attached.
func (a *attrs) moved(fd int) error {
	r, ok := a.pending[fd]
	if !ok {
		return nil
	}
	delete(a.pending, fd)
	return a.remountTree(fd, r)
}

func setattr(fd int, set uint64, recursive bool) error {
	flags := uint(unix.AT_EMPTY_PATH)
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	return unix.MountSetattr(fd, "", flags, &unix.MountAttr{Attr_set: set})
}

func (a *attrs) remountTree(fd int, r req) error {
	if err := remount(fd, r.set); err != nil {
		return err
	}
	if !r.recursive {
		return nil
	}
	top, err := mountID(fd)
	if err != nil {
		return err
	}
	entries, err := mountinfo.Self()
	if err != nil {
		return err
	}
	// A mount that another covers at the same place resolves to the top
	// one and keeps its flags; nothing inside can reach it, since removing
	// the cover takes CAP_SYS_ADMIN.
	for _, e := range Descendants(entries, top) {
		sub, err := resolve(a.root, e.MountPoint, false)
		if err != nil {
			return fmt.Errorf("submount %s: %w", e.MountPoint, err)
		}
		err = remount(sub, r.set)
		unix.Close(sub)
		if err != nil {
			return fmt.Errorf("submount %s: %w", e.MountPoint, err)
		}
	}
	return nil
}

// remount adds set to the flags of the mount fd is the root of, keeping
// the flags it has (locked ones must be kept or the kernel refuses).
func remount(fd int, set uint64) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return fmt.Errorf("fstatfs: %w", err)
	}
	keep := map[int64]uintptr{
		unix.ST_RDONLY: unix.MS_RDONLY, unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV,
		unix.ST_NOEXEC: unix.MS_NOEXEC, unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME,
		unix.ST_RELATIME: unix.MS_RELATIME,
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND)
	for st1, ms := range keep {
		if st.Flags&st1 != 0 {
			flags |= ms
		}
	}
	for attr, ms := range map[uint64]uintptr{
		unix.MOUNT_ATTR_RDONLY: unix.MS_RDONLY, unix.MOUNT_ATTR_NOSUID: unix.MS_NOSUID,
		unix.MOUNT_ATTR_NODEV: unix.MS_NODEV, unix.MOUNT_ATTR_NOEXEC: unix.MS_NOEXEC,
	} {
		if set&attr != 0 {
			flags |= ms
		}
	}
	path := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("remount: %w", err)
	}
	return nil
}

// mountID reads the ID of the mount fd is on from /proc/self/fdinfo, which
// every kernel nsrun runs on has (statx STATX_MNT_ID needs 5.8).
func mountID(fd int) (int, error) {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "mnt_id:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no mnt_id in fdinfo of %d", fd)
}
