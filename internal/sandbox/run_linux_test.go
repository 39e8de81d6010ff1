package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A first process not reaped yet has no status to tell: the message must
// not make one up ("exit status 0" from a zero WaitStatus).
func TestInitEnded(t *testing.T) {
	for _, c := range []struct {
		ws     unix.WaitStatus
		reaped bool
		want   string
	}{
		{0, false, "sandbox init ended before the payload started"},
		{unix.WaitStatus(9), true, "sandbox init ended before the payload started (killed by SIGKILL)"},
		{unix.WaitStatus(3 << 8), true, "sandbox init ended before the payload started (exit status 3)"},
	} {
		if got := initEnded(c.ws, c.reaped); got != c.want {
			t.Errorf("%v %v: %q, want %q", c.ws, c.reaped, got, c.want)
		}
	}
}
