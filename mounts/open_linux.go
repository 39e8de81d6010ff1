package mounts

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenNoSymlinks opens p with O_PATH, following no symlink on the way or
// at the end (ELOOP), below dirfd (a relative p) or from "/" (an absolute
// p with unix.AT_FDCWD). With inRoot, ".." and absolute names cannot leave
// dirfd either. With link, a symlink at the end is opened itself. openat2
// does it in one call; where it is refused with
// ENOSYS (a kernel before 5.6, or a sandbox whose filter refuses openat2
// because no filter can read its arguments, as nsrun's does: this is how a
// nested nsrun builds its mounts) the path is walked one component at a
// time with O_NOFOLLOW, which gives the same answer for the clean paths
// nsrun plans: they have no "..".
func OpenNoSymlinks(dirfd int, p string, inRoot, link bool) (int, error) {
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if inRoot {
		how.Resolve |= unix.RESOLVE_IN_ROOT
	}
	if link {
		how.Flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat2(dirfd, p, how)
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	return walkNoSymlinks(dirfd, p, link)
}

// walkNoSymlinks is openNoSymlinks one component at a time.
func walkNoSymlinks(dirfd int, p string, link bool) (int, error) {
	start := "."
	if strings.HasPrefix(p, "/") {
		dirfd, start = unix.AT_FDCWD, "/"
	}
	cur, err := unix.Openat(dirfd, start, unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, err
	}
	parts := strings.Split(p, "/")
	for i, c := range parts {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			unix.Close(cur)
			return -1, unix.EXDEV
		}
		next, err := unix.Openat(cur, c, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil {
			unix.Close(next)
			return -1, err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK && !(link && i == len(parts)-1) {
			unix.Close(next)
			return -1, unix.ELOOP
		}
		cur = next
	}
	return cur, nil
}
