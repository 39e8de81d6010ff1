//go:build !linux

package main

import (
	"fmt"
	"os"

	"github.com/nsrun/nsrun"
)

func sessionCommand(args []string, stdout, stderr *os.File) int {
	fmt.Fprintln(stderr, "nsrun: sessions are supported on Linux only")
	return nsrun.ExitSetup
}

func execCommand(args []string, stdin, stdout, stderr *os.File) int {
	return sessionCommand(args, stdout, stderr)
}
