package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A Landlock-only sandbox's private temporary directory is nsrun-N in the
// caller's temporary directory, beside its lock file nsrun-N.lock, which
// nsrun holds (flock) for the sandbox's life. The run removes both; a lock
// file nobody holds belongs to a run that could not (nsrun was killed),
// and the next run removes it with its directory. A lock, not a pid: a
// dead run's pid may name another process by then, while a lock is free
// exactly when no process holds it. The payload cannot touch the lock
// file: the directory holding it is read-only in the sandbox.
const (
	tmpPattern = "nsrun-*.lock"
	tmpLock    = ".lock"
)

// TmpDir is a sandbox's private temporary directory, with its lock held.
type TmpDir struct {
	path string
	lock *os.File
}

// NewTmpDir removes the temporary directories of runs that died, then
// makes one for this run, locked.
func NewTmpDir() (*TmpDir, error) {
	parent, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return nil, fmt.Errorf("private temporary directory: %w", err)
	}
	removeStaleTmp(parent)
	for i := 0; i < 100; i++ {
		t, err := tryTmpDir(parent)
		if t != nil || err != nil {
			return t, err
		}
	}
	return nil, fmt.Errorf("private temporary directory in %s: no free name after 100 tries", parent)
}

// tryTmpDir makes the lock file, locks it, then the directory beside it.
// It returns nil and no error when another run's cleanup took the lock
// file first, or the name is taken: the caller tries another name.
func tryTmpDir(parent string) (*TmpDir, error) {
	lock, err := os.CreateTemp(parent, tmpPattern)
	if err != nil {
		return nil, fmt.Errorf("private temporary directory: %w", err)
	}
	if !LockLive(lock) {
		// Taken by a run removing leftovers, which removes it.
		lock.Close()
		return nil, nil
	}
	t := &TmpDir{path: strings.TrimSuffix(lock.Name(), tmpLock), lock: lock}
	if err := os.Mkdir(t.path, 0o700); err != nil {
		UnlinkLock(lock)
		lock.Close()
		if errors.Is(err, fs.ErrExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("private temporary directory: %w", err)
	}
	return t, nil
}

// LockLive takes f's lock and reports whether f is still linked: a run
// removing leftovers may have locked and unlinked it first. Sessions'
// locks (internal/session) use it too.
func LockLive(f *os.File) bool {
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	var st unix.Stat_t
	return unix.Fstat(int(f.Fd()), &st) == nil && st.Nlink > 0
}

// UnlinkLock removes the lock file f, if its name still names it.
func UnlinkLock(f *os.File) {
	var held, named unix.Stat_t
	if unix.Fstat(int(f.Fd()), &held) != nil || unix.Lstat(f.Name(), &named) != nil {
		return
	}
	if held.Dev == named.Dev && held.Ino == named.Ino {
		_ = unix.Unlink(f.Name())
	}
}

// Path is the directory's path.
func (t *TmpDir) Path() string { return t.path }

// Remove removes the directory, then its lock file; where the directory
// cannot be removed, the lock file stays for the next run to try again.
func (t *TmpDir) Remove() error {
	if t == nil || t.lock == nil {
		return nil
	}
	defer func() {
		t.lock.Close()
		t.lock = nil
	}()
	if err := removeTree(t.path); err != nil {
		return err
	}
	UnlinkLock(t.lock)
	return nil
}

// removeStaleTmp removes the temporary directories in parent whose lock
// file is this user's and held by no one: those of runs that died. Other
// users' and running sandboxes' are left alone.
func removeStaleTmp(parent string) {
	d, err := os.Open(parent)
	if err != nil {
		return
	}
	ents, _ := d.ReadDir(-1)
	d.Close()
	for _, e := range ents {
		if ok, _ := filepath.Match(tmpPattern, e.Name()); ok && e.Type().IsRegular() {
			removeIfStale(filepath.Join(parent, e.Name()))
		}
	}
}

// removeIfStale removes the temporary directory of lock file path, and
// the lock file, if this user's lock is held by no one.
func removeIfStale(path string) {
	lock, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer lock.Close()
	var st unix.Stat_t
	if unix.Fstat(int(lock.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || !LockLive(lock) {
		return
	}
	dir := strings.TrimSuffix(path, tmpLock)
	var dst unix.Stat_t
	err = unix.Lstat(dir, &dst)
	switch {
	case err == nil && dst.Mode&unix.S_IFMT == unix.S_IFDIR && int(dst.Uid) == os.Geteuid():
		if removeTree(dir) != nil {
			return // the lock file stays: the next run tries again
		}
	case err != nil && !errors.Is(err, unix.ENOENT):
		return
	}
	// Gone, never made (a run killed before it could), or another's
	// file under that name, which is not this run's to remove.
	UnlinkLock(lock)
}

// removeTree removes a sandbox's private temporary directory once nothing
// of the sandbox runs: also the directories the payload made unreadable or
// unwritable (chmod 000), which os.RemoveAll alone leaves behind.
func removeTree(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	// WalkDir follows no symlink: only the tree's own directories are
	// opened up.
	// A directory is seen before it is read: opened up first, it can be.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the private temporary directory %s: %w", dir, err)
	}
	return nil
}
