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
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
