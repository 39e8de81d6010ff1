package changes

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"golang.org/x/sys/unix"
)

// tree is a host directory, walked below its top without following a
// symlink anywhere on the way: one put there since the run began is an
// error, never followed.
type tree struct {
	fd   int
	path string
}

func openTree(p string) (*tree, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil, err
	}
	return &tree{fd: fd, path: p}, nil
}

func (t *tree) close() { unix.Close(t.fd) }

// openAt opens rel below the top with flags, the last component itself if
// a symlink (with O_PATH).
func (t *tree) openAt(rel string, flags uint64) (int, error) {
	if rel == "" {
		rel = "."
	}
	fd, err := unix.Openat2(t.fd, rel, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return -1, fmt.Errorf("%s/%s: a symlink is in the way on the host now", t.path, rel)
	}
	return fd, err
}

// lstat stats rel; exists is false when it is missing.
func (t *tree) lstat(rel string) (st unix.Stat_t, exists bool, err error) {
	fd, err := t.openAt(rel, unix.O_PATH)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	if errors.Is(err, unix.ENOTDIR) {
		return st, false, fmt.Errorf("%s/%s: a file is in the way on the host now", t.path, rel)
	}
	if err != nil {
		return st, false, err
	}
	defer unix.Close(fd)
	return st, true, unix.Fstat(fd, &st)
}

func (t *tree) names(rel string) ([]string, error) {
	fd, err := t.openAt(rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	sort.Strings(names)
	return names, err
}

func (t *tree) readlink(rel string) (string, error) {
	fd, err := t.openAt(rel, unix.O_PATH)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return readlinkFD(fd)
}

func (t *tree) open(rel string) (*os.File, error) {
	fd, err := t.openAt(rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// readlinkFD reads the target of the symlink an O_PATH|O_NOFOLLOW
// descriptor holds.
func readlinkFD(fd int) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(fd, "", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
