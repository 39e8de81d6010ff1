//go:build linux && (amd64 || arm64)

package nofile

// prlimitNofile is prlimit64(0, RLIMIT_NOFILE, NULL, old); it returns the
// kernel's answer: 0, or a negated errno.
func prlimitNofile(old *[2]uint64) (errno uintptr)
