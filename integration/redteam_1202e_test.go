//go:build linux

package integration

import (
	"os/exec"
	"testing"
)

// TestPid1OutlivesItsLoweredRlimits: the payload has pid 1's credentials
// (no capability tells them apart), so prlimit(2) on pid 1 is its to
// make: it may lower pid 1's limits. The raw init's supervisor waits in
// ppoll(2) on three descriptors, which fails with EINVAL once
// RLIMIT_NOFILE is below three; it then ended the sandbox at the next
// wake-up (an orphan's SIGCHLD, a signal to forward) with the setup status
// 125 and no word of why, killing a payload that was still running. The
// Go init (epoll, a runtime of its own) reaps on and reports the
// payload's own status; so must the raw init.
func TestPid1OutlivesItsLoweredRlimits(t *testing.T) {
	need(t)
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	// The orphan's end is the wake-up: pid 1 reaps it, then polls again.
	script := `prlimit --pid 1 --nofile=1:1 || exit 90
		(sleep 0.2 &)
		sleep 1
		echo still here
		exit 7`
	for _, init := range []string{"go", "raw"} {
		r := runBase(t, "/", noShims(workspace(t)), []string{"NSRUN_INIT=" + init}, "--", "/bin/sh", "-c", script)
		if r.code != 7 || r.stdout != "still here" {
			t.Errorf("%s init: want exit 7 and \"still here\" (the payload's own end):\n%v", init, r)
		}
	}
}
