package launch

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

var rlimitResources = map[string]int{
	"nofile": unix.RLIMIT_NOFILE, "nproc": unix.RLIMIT_NPROC, "as": unix.RLIMIT_AS, "cpu": unix.RLIMIT_CPU,
	"fsize": unix.RLIMIT_FSIZE, "core": unix.RLIMIT_CORE, "stack": unix.RLIMIT_STACK, "memlock": unix.RLIMIT_MEMLOCK,
}

// Rlimit is a resource limit for the payload, named as in prlimit(1)
// (the library's Rlimit).
type Rlimit struct {
	Name       string
	Soft, Hard uint64
}

// ApplyRlimits sets the limits on this process; the payload inherits them.
// syscall.Setrlimit, not unix's: for RLIMIT_NOFILE it also stops Go from
// restoring its own saved limit in the children it forks.
func ApplyRlimits(rs []Rlimit) error {
	for _, r := range rs {
		res, ok := rlimitResources[r.Name]
		if !ok {
			return fmt.Errorf("rlimit %s: unknown", r.Name)
		}
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: r.Soft, Max: r.Hard}); err != nil {
			if errors.Is(err, unix.EPERM) {
				var cur syscall.Rlimit
				_ = syscall.Getrlimit(res, &cur)
				return fmt.Errorf("rlimit %s=%d:%d: cannot raise the hard limit above %d: %w", r.Name, r.Soft, r.Hard, cur.Max, err)
			}
			return fmt.Errorf("rlimit %s: %w", r.Name, err)
		}
	}
	return nil
}
