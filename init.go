package nsrun

import "github.com/nsrun/nsrun/reexec"

// Init runs the sandbox stage this process was started as, if any, and
// returns its exit status with ran set; the caller must then exit with it
// at once. Call it first in main, before anything else runs.
func Init() (code int, ran bool) {
	return reexec.Init()
}
