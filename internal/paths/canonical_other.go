//go:build !linux

package paths

import "io/fs"

func canonicalFast(abs, given string) (string, fs.FileInfo, bool) { return "", nil, false }
