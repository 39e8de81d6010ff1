package plan

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// Identity is the device and inode of a stat result, whichever of the two
// stat types it carries (os.Lstat's, or paths.Canonical's fast path's).
func Identity(info os.FileInfo) mounts.Identity {
	switch st := info.Sys().(type) {
	case *syscall.Stat_t:
		return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
	case *unix.Stat_t:
		return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
	}
	return mounts.Identity{}
}

// LinkCount is the number of hard links of a stat result.
func LinkCount(info os.FileInfo) uint64 {
	switch st := info.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Nlink)
	case *unix.Stat_t:
		return uint64(st.Nlink)
	}
	return 0
}

// DirIdentity is the identity of a host directory the mount plan pins.
func DirIdentity(p string) (mounts.Identity, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return mounts.Identity{}, err
	}
	if !fi.IsDir() {
		return mounts.Identity{}, fmt.Errorf("is %s, not a directory", paths.FileKind(fi.Mode()))
	}
	id := Identity(fi)
	if id == (mounts.Identity{}) {
		return id, errors.New("cannot tell which file this is (no device and inode)")
	}
	return id, nil
}
