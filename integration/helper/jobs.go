//go:build linux

package main

import (
	"os"
	"os/signal"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// jobOp runs the job-control operations.
func jobOp(op string, _ []string) (string, bool, error) {
	switch op {
	case "stop-count-cont": // stop as Ctrl-Z would, then count the SIGCONTs that come
		c := make(chan os.Signal, 16)
		signal.Notify(c, unix.SIGCONT)
		if err := unix.Kill(0, unix.SIGTSTP); err != nil {
			return "", true, err
		}
		n := 0
		for end := time.After(500 * time.Millisecond); ; {
			select {
			case <-c:
				n++
			case <-end:
				return "continued " + strconv.Itoa(n), true, nil
			}
		}
	}
	return "", false, nil
}
