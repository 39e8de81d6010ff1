package changes

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// ConflictError is an Apply that changed nothing: these changes conflict
// with the host or cannot be applied.
type ConflictError struct {
	Changes []Change
}

func (e *ConflictError) Error() string {
	c := e.Changes[0]
	why := c.Conflict
	if why == "" {
		why = c.Refused
	}
	more := ""
	if len(e.Changes) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(e.Changes)-1)
	}
	return fmt.Sprintf("%s: %s%s; nothing applied", c.Host, why, more)
}

// ErrApplied is a kept directory whose changes were applied already.
var ErrApplied = errors.New("its changes were applied already")

// Apply writes the changes kept in dir onto the host, as Scan lists them,
// and records in the manifest that it did. It writes nothing when any
// change conflicts or is refused (a *ConflictError), or when they were
// applied already. It returns the changes applied.
func Apply(dir string) ([]Change, error) {
	lock, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return nil, errors.New("is in use by a run; apply its changes once it is over")
	}
	m, changes, err := Scan(dir)
	if err != nil {
		return nil, err
	}
	if !m.Applied.IsZero() {
		return nil, ErrApplied
	}
	// A run that nsrun could not tidy after (it was killed).
	_ = Tidy(dir)
	var bad []Change
	for _, c := range changes {
		if c.Conflict != "" || c.Refused != "" {
			bad = append(bad, c)
		}
	}
	if len(bad) > 0 {
		return nil, &ConflictError{Changes: bad}
	}
	trees := make([]*tree, len(m.Layers))
	for i, l := range m.Layers {
		t, err := openTree(l.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing applied", l.Host, err)
		}
		defer t.close()
		trees[i] = t
	}
	for i, c := range changes {
		if err := apply(trees[c.layer], c); err != nil {
			return changes[:i], fmt.Errorf("%s: %w (the %d changes before it were applied)", c.Host, err, i)
		}
	}
	return changes, markApplied(dir, m)
}

// apply makes one change in t.
func apply(t *tree, c Change) error {
	parent, err := t.openAt(filepath.Dir(c.rel), unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	name := filepath.Base(c.rel)
	if c.Kind == Deleted {
		return removeAt(parent, name)
	}
	// No set-uid or set-gid file from the sandbox; the sticky bit stays.
	perm := c.st.Mode & 0o1777
	var st unix.Stat_t
	err = unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	exists := err == nil
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	isDir := exists && st.Mode&unix.S_IFMT == unix.S_IFDIR
	switch c.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if exists && !isDir {
			if err := unix.Unlinkat(parent, name, 0); err != nil {
				return err
			}
		}
		if !isDir {
			if err := unix.Mkdirat(parent, name, 0o700); err != nil {
				return err
			}
		}
		fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Fchmod(fd, perm)
	case unix.S_IFREG:
		return replace(parent, name, isDir, func(tmp string) error { return copyFile(c, parent, tmp, perm) })
	case unix.S_IFLNK:
		target, err := os.Readlink(c.up)
		if err != nil {
			return err
		}
		return replace(parent, name, isDir, func(tmp string) error { return unix.Symlinkat(target, parent, tmp) })
	}
	return fmt.Errorf("%s: not a file, directory or symlink", c.up)
}

// replace makes a new entry with make under a temporary name in parent
// and renames it over name (a directory there is removed first).
func replace(parent int, name string, isDir bool, make func(tmp string) error) error {
	var b [8]byte
	// getrandom, not crypto/rand, whose packages' initialization would run
	// at the start of every nsrun process.
	if _, err := unix.Getrandom(b[:], 0); err != nil { // up to 256 bytes: never short
		return fmt.Errorf("getrandom: %w", err)
	}
	tmp := ".nsrun-apply." + hex.EncodeToString(b[:])
	if err := make(tmp); err != nil {
		unix.Unlinkat(parent, tmp, 0)
		return err
	}
	if isDir {
		if err := removeAt(parent, name); err != nil {
			unix.Unlinkat(parent, tmp, 0)
			return err
		}
	}
	if err := unix.Renameat(parent, tmp, parent, name); err != nil {
		unix.Unlinkat(parent, tmp, 0)
		return err
	}
	return nil
}

// copyFile writes the upper layer's file of c as tmp in parent, with perm
// and the upper file's times.
func copyFile(c Change, parent int, tmp string, perm uint32) error {
	src, err := os.OpenFile(c.up, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer src.Close()
	fd, err := unix.Openat(parent, tmp, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	dst := os.NewFile(uintptr(fd), tmp)
	defer dst.Close()
	if _, err := io.Copy(dst, src); err != nil {
		return err
	}
	if err := unix.Fchmod(fd, perm); err != nil {
		return err
	}
	if err := dst.Sync(); err != nil {
		return err
	}
	return unix.UtimesNanoAt(parent, tmp, []unix.Timespec{c.st.Atim, c.st.Mtim}, unix.AT_SYMLINK_NOFOLLOW)
}

// removeAt removes name in parent, a directory with what it holds,
// following no symlink.
func removeAt(parent int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return unix.Unlinkat(parent, name, 0)
	}
	// RemoveAll walks with openat and unlinkat from the directory it is
	// given, never following a symlink below it; the descriptor's magic
	// link names parent itself.
	return os.RemoveAll("/proc/self/fd/" + strconv.Itoa(parent) + "/" + name)
}
