//go:build !linux

package nsrun

import "os"

// fileName is how the report names a passed descriptor.
func fileName(f *os.File) string { return f.Name() }
