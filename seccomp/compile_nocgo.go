//go:build !linux || !cgo

package seccomp

import "errors"

// Available reports whether this build can compile profiles.
const Available = false

// Compile needs libseccomp, which a build without cgo does not have.
func Compile(p Profile) (*Compiled, error) {
	return nil, errors.New("seccomp: this nsrun was built without cgo and libseccomp, so it cannot compile filters (rebuild with make build, or use --seccomp off)")
}
