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

// StageTraced, the Landlock-only stage's one argument, says nsrun will
// trace the sandbox (--trace-denials).
const StageTraced = "traced"

// LandlockChildStage is the Landlock-only stage's child, which becomes the
// payload.
const LandlockChildStage = "nsrun-landlock-child"

// LandlockStage is the Landlock-only sandbox's supervisor.
const LandlockStage = "nsrun-landlock"
