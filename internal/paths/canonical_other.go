//go:build !linux

package paths

import "io/fs"

func (r *Resolver) fast(abs, given string) (string, fs.FileInfo, bool) { return "", nil, false }

// Close releases what r holds: nothing here.
func (r *Resolver) Close() {}
