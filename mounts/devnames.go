package mounts

// devNodes are the host device nodes bound into the sandbox's /dev; of the
// host's /dev nothing else is reachable but the devices a plan names.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devFixed are the other names of the sandbox's /dev, which no device can
// take.
var devFixed = map[string]bool{"pts": true, "shm": true, "ptmx": true, "fd": true,
	"stdin": true, "stdout": true, "stderr": true, "console": true}

// DevicePaths are the host device nodes every sandbox may use, by path:
// bound into the sandbox's /dev, or allowed in place where there are no
// mounts (Landlock only).
func DevicePaths() []string {
	out := make([]string, len(devNodes))
	for i, n := range devNodes {
		out[i] = "/dev/" + n
	}
	return out
}
