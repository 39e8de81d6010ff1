//go:build unix

package gitguard

import (
	"os"
	"syscall"
)

// device is the file system p lies on, as git's discovery compares it.
func device(p string) (uint64, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true //nolint:unconvert // int32 on some systems
}
