// Command nsrun runs a command in a sandbox; see docs/MANUAL.md for usage.
package main

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
