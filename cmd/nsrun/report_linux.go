package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/mounts"
)

// replaceFile puts a file holding data at dir/base: dir (canonical) is
// opened with no symlink followed, the data goes in a new file there
// (O_EXCL, O_NOFOLLOW) which is then renamed over base. A directory at
// base is exchanged with the new file and removed. If that fails, what is
// at base is removed, so that no report but nsrun's is ever found there.
func replaceFile(dir, base string, data []byte) error {
	dirfd, err := mounts.OpenNoSymlinks(unix.AT_FDCWD, dir, false, false)
	if err == nil {
		var st unix.Stat_t
		if err = unix.Fstat(dirfd, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			err = unix.ENOTDIR
		}
		if err != nil {
			unix.Close(dirfd)
		}
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return fmt.Errorf("open %s: a symlink is now in the way (%w)", dir, err)
		}
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dirfd)
	if err := place(dirfd, dir, base, data); err != nil {
		if rerr := unix.Unlinkat(dirfd, base, 0); errors.Is(rerr, unix.EISDIR) {
			_ = os.RemoveAll(filepath.Join(dir, base))
		}
		return err
	}
	return nil
}

func place(dirfd int, dir, base string, data []byte) error {
	tmp, fd, err := createTemp(dirfd, base)
	if errors.Is(err, unix.EACCES) && restoreWrite(dirfd) {
		tmp, fd, err = createTemp(dirfd, base)
	}
	if err != nil {
		return fmt.Errorf("create a file in %s: %w", dir, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dirfd, tmp, dirfd, base)
		if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			// A directory is in the way: swap it out, then remove it.
			if err = unix.Renameat2(dirfd, tmp, dirfd, base, unix.RENAME_EXCHANGE); err == nil {
				return os.RemoveAll(filepath.Join(dir, tmp))
			}
		}
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return fmt.Errorf("write %s: %w", filepath.Join(dir, base), err)
	}
	return nil
}

// restoreWrite gives the owner back the right to write in the directory
// dirfd, which it had when the run started (openReport checked): the
// sandbox, running as the same user, may have taken it away to keep its
// forged report in place.
func restoreWrite(dirfd int) bool {
	var st unix.Stat_t
	if unix.Fstat(dirfd, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&0o300 == 0o300 {
		return false
	}
	return unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", dirfd), st.Mode&0o7777|0o300) == nil
}

// writable checks that this process may create files in dir.
func writable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}

// createTemp creates a new file next to base in dirfd.
func createTemp(dirfd int, base string) (string, int, error) {
	for {
		var r [6]byte
		// getrandom, not crypto/rand: its packages' initialization
		// would run at the start of every nsrun process.
		if _, err := unix.Getrandom(r[:], 0); err != nil { // up to 256 bytes: never short
			return "", -1, fmt.Errorf("getrandom: %w", err)
		}
		name := "." + base + ".nsrun-" + hex.EncodeToString(r[:])
		fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return name, fd, err
	}
}
