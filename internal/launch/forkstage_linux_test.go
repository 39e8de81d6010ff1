package launch

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestHelperFDs(t *testing.T) {
	if TTYSockFD != 5 || NetSockFD != 6 || HelperRequestFD != 7 || HelperResultFD != 8 || HelperCgroupFD != 9 {
		t.Error("the helper's descriptors follow the init's seven")
	}
}

// The helper ends as the init ended: with its exit code, or killed by its
// signal, even one that Go's own handler would otherwise catch and ignore
// (SIGUSR1) or turn into an exit status.
func TestExitAs(t *testing.T) {
	if s := os.Getenv("NSRUN_TEST_EXIT_AS"); s != "" {
		n, _ := strconv.Atoi(s[1:])
		ws := unix.WaitStatus(n << 8) // exited with n
		if s[0] == 's' {
			ws = unix.WaitStatus(n) // killed by signal n
		}
		os.Exit(exitAs(ws))
	}
	for _, tc := range []struct {
		env  string
		code int
		sig  syscall.Signal
	}{
		{"c0", 0, 0},
		{"c3", 3, 0},
		{"c125", 125, 0},
		{"s" + strconv.Itoa(int(unix.SIGTERM)), -1, unix.SIGTERM},
		{"s" + strconv.Itoa(int(unix.SIGUSR1)), -1, unix.SIGUSR1},
		{"s" + strconv.Itoa(int(unix.SIGINT)), -1, unix.SIGINT},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExitAs$", "-test.count=1")
		cmd.Env = append(os.Environ(), "NSRUN_TEST_EXIT_AS="+tc.env)
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s: %v", tc.env, err)
		}
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if tc.sig != 0 {
			if !ws.Signaled() || ws.Signal() != tc.sig || ws.CoreDump() {
				t.Errorf("%s: ended %v, want killed by %v without a core", tc.env, cmd.ProcessState, tc.sig)
			}
		} else if !ws.Exited() || ws.ExitStatus() != tc.code {
			t.Errorf("%s: ended %v, want exit status %d", tc.env, cmd.ProcessState, tc.code)
		}
	}
}
