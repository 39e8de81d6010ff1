// Command nsrun runs a command in a sandbox; see docs/MANUAL.md for usage.
//
//go:debug updatemaxprocs=0
package main

// updatemaxprocs=0: GOMAXPROCS is set at start from the CPUs and cgroup
// limit, and not followed afterwards. Every nsrun process (the CLI, the
// sandbox's init, the Landlock-only stages) is short or waits on system
// calls; following the limit costs each one a goroutine at start and a
// second read of its cgroup's CPU files by sysmon.

import (
	"os"

	"github.com/nsrun/nsrun"
)

func main() {
	if code, ran := nsrun.Init(); ran {
		os.Exit(code)
	}
	// Run as bwrap (a symlink or copy so named), nsrun speaks
	// bubblewrap's command line.
	if isBwrapName(os.Args[0]) {
		os.Exit(bwrapMain(os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
