package sandbox

import (
	"testing"

	"github.com/nsrun/nsrun/cgroup"
)

// An init asked to share the caller's memory gets a copy under a memory
// limit, and for a caller that is not root.
func TestNoShareWhy(t *testing.T) {
	for _, c := range []struct {
		share  bool
		memory uint64
		euid   int
		copied bool
	}{
		{false, 0, 0, false},
		{false, 1 << 20, 1000, false},
		{true, 0, 0, false},
		{true, 0, 1000, true},
		{true, 1 << 20, 0, true},
		{true, 1 << 20, 1000, true},
	} {
		why := noShareWhy(&Attr{ShareMemory: c.share, Limits: cgroup.Limits{Memory: c.memory}}, c.euid)
		if (why != "") != c.copied {
			t.Errorf("share %v, memory %d, euid %d: %q", c.share, c.memory, c.euid, why)
		}
	}
}
