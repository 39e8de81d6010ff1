package launch

import (
	"os"
	"syscall"

	"github.com/nsrun/nsrun/landlock"
)

// ExecDirs are where system programs live; in a Landlock-only sandbox
// they, the writable rules and the read-only rules can execute, and
// nothing else: a program dropped in a world-writable place cannot run.
var ExecDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}

// LstatID is the identity of path, or none when it cannot be had (the
// path then gets no rule if it is missing when the rules are made).
func LstatID(path string) landlock.Identity {
	fi, err := os.Lstat(path)
	if err != nil {
		return landlock.Identity{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return landlock.Identity{}
	}
	return landlock.Identity{Dev: st.Dev, Ino: st.Ino}
}

// The Landlock-only stage's arguments. StageTraced says nsrun will trace
// the sandbox (--trace-denials). StageMovedIn says nsrun moves the stage
// into its cgroup after it started (cgroup v1, or clone3 refused): the
// stage forks its child only once it has the spec, which nsrun writes
// after the move, so that the child is born in the cgroup too.
const (
	StageTraced  = "traced"
	StageMovedIn = "moved-in"
)

// LandlockChildStage is the Landlock-only stage's child, which becomes the
// payload.
const LandlockChildStage = "nsrun-landlock-child"

// LandlockStage is the Landlock-only sandbox's supervisor.
const LandlockStage = "nsrun-landlock"
