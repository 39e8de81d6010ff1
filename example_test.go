package nsrun_test

import (
	"fmt"
	"os"
	"time"

	"github.com/nsrun/nsrun"
)

// A server runs an untrusted build in a job directory: the directory is
// writable, its .git is not, the home directory's secrets are hidden, and
// the whole sandbox ends after five minutes. The program's main must call
// nsrun.Init first (see the package documentation).
func Example() {
	policy := &nsrun.Policy{Rules: []nsrun.Rule{
		{Path: "/srv/jobs/42", Access: nsrun.ReadWrite},
		{Path: "/srv/jobs/42/.git", Access: nsrun.ReadOnly},
		{Path: "/root/.ssh", Access: nsrun.Deny},
	}}
	cmd := nsrun.Command(policy, "make", "test")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Timeout = 5 * time.Minute
	err := cmd.Run()
	report := cmd.Report()
	fmt.Println("exit", nsrun.ExitCode(err), "enforcement", report.Enforcement)
}
