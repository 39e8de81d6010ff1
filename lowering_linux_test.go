package nsrun

import (
	"testing"

	"github.com/nsrun/nsrun/internal/sandbox"
)

// The sandbox's TTY modes are the library's, converted by value.
func TestSandboxTTYModesAreTheLibrarys(t *testing.T) {
	for m, want := range map[TTYMode]sandbox.TTYMode{TTYAuto: sandbox.TTYAuto, TTYAlways: sandbox.TTYAlways, TTYNever: sandbox.TTYNever} {
		if sandbox.TTYMode(m) != want {
			t.Errorf("%v is the sandbox's %d, want %d", m, sandbox.TTYMode(m), want)
		}
	}
}
