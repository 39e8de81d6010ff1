// Package paths holds the comparisons of clean absolute paths that the
// policy resolver (every platform) and the mount plan (Linux) must make
// the same way, the canonical host path of a rule's path (Canonical), and
// which kinds of host file each access takes (KindRefusal), with the
// words the root's RuleError gives.
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

// Cover is the item deciding the clean absolute path p among items, each
// at the place at gives: the deepest one at p or above it, the later one
// of two at the same place. ok is false when none is.
func Cover[T any](items []T, p string, at func(T) string) (item T, ok bool) {
	depth := -1
	for _, it := range items {
		place := at(it)
		if !Within(p, place) {
			continue
		}
		if d := Depth(place); d >= depth {
			item, ok, depth = it, true, d
		}
	}
	return item, ok
}
