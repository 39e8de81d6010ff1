package landlock

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ABI returns the Landlock ABI version the running kernel offers. It fails
// with ENOSYS when the kernel lacks Landlock and EOPNOTSUPP when Landlock
// is built in but not enabled at boot.
func ABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, fmt.Errorf("landlock_create_ruleset version: %w", errno)
	}
	return int(v), nil
}
