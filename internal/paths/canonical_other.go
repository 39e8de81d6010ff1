//go:build !linux

package paths

import "io/fs"

// A Resolver is Canonical for many paths. On Linux it keeps a directory
// open between them; here it holds nothing. The zero value is ready.
type Resolver struct{}

func (r *Resolver) fast(abs, given string) (string, fs.FileInfo, bool) { return "", nil, false }

// Close releases what r holds: nothing here.
func (r *Resolver) Close() {}
