package nsrun

import (
	"errors"
	"sync/atomic"

	"github.com/nsrun/nsrun/reexec"
)

// initCalled records that the program called Init, as it must before it
// starts a sandbox: the sandbox's init is the program started again, and
// only Init turns that second start into the init.
var initCalled atomic.Bool

// ErrNoInit is returned by Start when the program never called Init. The
// sandbox's init would have run the program's main a second time instead.
var ErrNoInit = errors.New("nsrun: Start before nsrun.Init: call nsrun.Init() first in main, and exit with its code when it ran (the sandbox's init is this program started again)")

// Init runs the sandbox stage this process was started as, if any, and
// returns its exit status with ran set; the caller must then exit with it
// at once. Call it first in main, before anything else runs: Start refuses
// to run in a program that has not called it.
func Init() (code int, ran bool) {
	initCalled.Store(true)
	return reexec.Init()
}
