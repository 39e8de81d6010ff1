package nsrun

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/mounts"
)

// symlinksAlong lists the symlinks met while resolving the absolute path
// p, each at its canonical place and with its target, so that the sandbox
// can recreate those its own filesystems would hide. It stops at the first
// component it cannot read: the rule's own canonicalisation reports that.
func symlinksAlong(p string) []mounts.Link {
	var links []mounts.Link
	cur := "/"
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return links
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			return links
		}
		links = append(links, mounts.Link{Path: next, Target: target})
		if cur, err = filepath.EvalSymlinks(next); err != nil {
			return links
		}
	}
	return links
}
