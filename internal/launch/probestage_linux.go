package launch

import (
	"fmt"
	"os"

	"github.com/nsrun/nsrun/mounts"
)

// ProbeStage runs in the namespaces ProbeHost makes, as the init gets
// them: it mounts a procfs and a sysfs as the init would, and says why not
// on stderr.
const ProbeStage = "nsrun-probe"

// ProbeSysFailed is the probe stage's exit status when the procfs mounted
// and the sysfs did not.
const ProbeSysFailed = 2

// RunProbeStage is the probe stage (ProbeStage).
func RunProbeStage() int {
	if err := mounts.TryProc(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := mounts.TrySys(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return ProbeSysFailed
	}
	return 0
}

// ProbeWaitStage is a process the probe places in a cgroup, as a sandbox's
// init is placed: it waits for its stdin to close.
const ProbeWaitStage = "nsrun-probe-wait"

// RunProbeWaitStage is the probe's waiting process (ProbeWaitStage).
func RunProbeWaitStage() int {
	var b [1]byte
	for {
		if _, err := os.Stdin.Read(b[:]); err != nil {
			return 0
		}
	}
}
