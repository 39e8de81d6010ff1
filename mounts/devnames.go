package mounts

// devNodes are the host device nodes bound into the sandbox's /dev; of the
// host's /dev nothing else is reachable but the devices a plan names.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devFixed are the other names of the sandbox's /dev, which no device can
// take.
var devFixed = map[string]bool{"pts": true, "shm": true, "ptmx": true, "fd": true,
	"stdin": true, "stdout": true, "stderr": true, "console": true}
