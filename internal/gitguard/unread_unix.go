//go:build unix

package gitguard

import (
	"os"
	"syscall"
)

// mayHide reports whether the payload, which runs as nsrun's user, could
// have put something in dir that nsrun cannot read: dir is that user's
// (who can take away its own right to list it while keeping the right to
// enter it, all host git and the user's cd need), or writable by that
// user. A directory of another user that this one may neither list nor
// write holds nothing of the payload's.
func mayHide(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil {
		return false // gone: nothing there to hide
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Geteuid() {
		return true
	}
	return syscall.Access(dir, 2 /* W_OK */) == nil
}
