package main

import (
	"fmt"
	"os"
)

// shareMemoryVar asks nsrun to share its memory with the sandbox's init
// (nsrun.Cmd.ShareMemory): a cheaper launch, for a /proc/1/cmdline that
// shows nsrun's own command line instead of "nsrun-init". Not a flag: a
// tuning that leaves the sandbox as it is.
const shareMemoryVar = "NSRUN_SHARE_MEMORY"

func shareMemoryFromEnv() (bool, error) { return envSwitch(shareMemoryVar, "0", "1") }

// envSwitch reads the environment's switch name: unset or no is false,
// yes is true, and anything else is refused rather than guessed.
func envSwitch(name, no, yes string) (bool, error) {
	switch v := os.Getenv(name); v {
	case "", no:
		return false, nil
	case yes:
		return true, nil
	default:
		return false, fmt.Errorf("%s=%s: not %s or %s", name, v, no, yes)
	}
}
