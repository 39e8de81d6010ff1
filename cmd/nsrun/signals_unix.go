//go:build !windows

package main

import (
	"os"
	"syscall"
)

// forwardedSignals are passed on to the sandbox's payload.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}
