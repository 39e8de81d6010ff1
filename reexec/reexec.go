// Package reexec starts the running program again as a named stage and
// dispatches to that stage when the program finds itself started that way.
//
// A stage is chosen by argv[0] alone and carries no environment of its
// own: anything it needs comes over inherited file descriptors. A stage's
// other arguments, if any, are flags that tell it how to start and hold
// nothing a reader of /proc/PID/cmdline may not see. The registry is the only global state,
// filled by package initialization before main runs.
package reexec

import "os"

var stages = map[string]func() int{}

// Register names a stage. Names should not look like a program a user
// would run. Register is meant for package initialization: it panics when
// name is already registered, since two stages under one name would make
// argv[0] ambiguous, and that is a programming error no caller can handle.
func Register(name string, stage func() int) {
	if _, dup := stages[name]; dup {
		panic("reexec: stage " + name + " registered twice")
	}
	stages[name] = stage
}

// Init runs the stage named by argv[0], if any, and returns its exit code
// with ran set. Programs call it first in main and exit with the code when
// ran is true.
func Init() (code int, ran bool) {
	if len(os.Args) == 0 {
		return 0, false
	}
	stage, ok := stages[os.Args[0]]
	if !ok {
		return 0, false
	}
	return stage(), true
}

// Self is the path that re-executes the running program, immune to the
// binary being moved or replaced on disk after it started.
const Self = "/proc/self/exe"
