package nofile_test

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/nsrun/nsrun/internal/rawinit/nofile"
)

// TestOriginalIsBeforeGoRaisedIt: under a soft limit below the hard one,
// Original gives the soft limit the process started with, where the Go
// runtime has raised its own by then.
func TestOriginalIsBeforeGoRaisedIt(t *testing.T) {
	if os.Getenv("NOFILE_CHILD") == "1" {
		soft, hard, ok := nofile.Original()
		var now syscall.Rlimit
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now)
		if !ok || soft != 64 || hard != now.Max || now.Cur == 64 {
			t.Fatalf("Original() = %d, %d, %v; the limit now %+v", soft, hard, ok, now)
		}
		return
	}
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	var now syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now); err != nil || now.Max < 128 {
		t.Skipf("hard limit %d: no room below it", now.Max)
	}
	cmd := exec.Command("prlimit", "--nofile=64:", os.Args[0], "-test.run=^TestOriginalIsBeforeGoRaisedIt$", "-test.v")
	cmd.Env = append(os.Environ(), "NOFILE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("%v: %s", err, out)
	}
}
