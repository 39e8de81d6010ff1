//go:build linux

// Command ptycat runs a command on a fresh pseudo-terminal, as a terminal
// emulator would (its session leader, the pty its controlling terminal),
// reads everything it writes as fast as it can, and prints how long the
// run took and how many bytes came out.
//
//	ptycat CMD [ARG...]
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/pty"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ptycat CMD [ARG...]")
		os.Exit(2)
	}
	master, slave, err := pty.Open("/dev/ptmx")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = pty.SetSize(int(master.Fd()), 50, 200)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	slave.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		m, err := unix.Read(int(master.Fd()), buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || m == 0 {
			break // EIO: the last slave is closed
		}
		n += int64(m)
	}
	werr := cmd.Wait()
	elapsed := time.Since(start)
	if werr != nil {
		fmt.Fprintln(os.Stderr, "ptycat:", werr)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"ms": float64(elapsed.Microseconds()) / 1000, "bytes": n})
}
