// Package paths holds the comparisons of clean absolute paths that the
// policy resolver (every platform) and the mount plan (Linux) must make
// the same way, and the canonical host path of a rule's path (Canonical).
package paths

import (
	"path/filepath"
	"strings"
)

// Within says whether the clean absolute path p is base or below it.
func Within(p, base string) bool {
	if base == "/" {
		return true
	}
	return p == base || strings.HasPrefix(p, base+"/")
}

// Depth is the number of components in a clean absolute path.
func Depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// Abs makes p absolute against cwd without touching the filesystem.
func Abs(p, cwd string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}
