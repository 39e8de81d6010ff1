//go:build !linux

package nsrun

import "io/fs"

func canonicalFast(abs, given string) (string, fs.FileInfo, bool) { return "", nil, false }
