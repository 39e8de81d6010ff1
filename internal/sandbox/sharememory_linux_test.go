package sandbox

import (
	"testing"

	"github.com/nsrun/nsrun/cgroup"
)

// An init asked to share the caller's memory gets a copy under a memory
// limit, whoever the caller.
func TestNoShareWhy(t *testing.T) {
	for _, c := range []struct {
		share  bool
		memory uint64
		copied bool
	}{
		{false, 0, false},
		{false, 1 << 20, false},
		{true, 0, false},
		{true, 1 << 20, true},
	} {
		why := noShareWhy(&Attr{ShareMemory: c.share, Limits: cgroup.Limits{Memory: c.memory}})
		if (why != "") != c.copied {
			t.Errorf("share %v, memory %d: %q", c.share, c.memory, why)
		}
	}
}
