package seccomp

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Probe says whether this kernel takes nsrun's filters: seccomp is on, has
// the kill_process action, and the default profile compiles here. The
// error says what is missing.
func Probe() error {
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_GET_SECCOMP: %w", err)
	}
	b, err := os.ReadFile("/proc/sys/kernel/seccomp/actions_avail")
	if err != nil {
		return fmt.Errorf("read actions_avail: %w", err)
	}
	if !strings.Contains(string(b), "kill_process") {
		return errors.New("the kernel lacks the kill_process action")
	}
	if _, err := Compile(Default(Options{})); err != nil {
		return fmt.Errorf("the kernel has filters, but nsrun cannot build one here: %w", err)
	}
	return nil
}
