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

// shareMemory reads NSRUN_SHARE_MEMORY from value: unset or 0 is no, 1 is
// yes, anything else is refused rather than guessed.
func shareMemory(value string) (bool, error) {
	switch value {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("%s=%s: not 0 or 1", shareMemoryVar, value)
}

func shareMemoryFromEnv() (bool, error) { return shareMemory(os.Getenv(shareMemoryVar)) }
