package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/mounts"
)

// symlinksAlong lists the symlinks met while resolving the absolute path
// p, in the order met (those in the targets of links included), each at
// its canonical place, with its target and identity: the sandbox recreates
// those its own filesystems would hide, and pins those a protective rule's
// path goes through. It stops at the first component it cannot read (the
// rule's own canonicalisation reports that) and after 40 links, as the
// kernel does.
func symlinksAlong(p string) []mounts.Link {
	var links []mounts.Link
	cur := "/"
	rest := strings.Split(p, "/")
	for len(rest) > 0 && len(links) < 40 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
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
		links = append(links, mounts.Link{Path: next, Target: target, ID: plan.Identity(fi)})
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return links
}

// unpinnableLink refuses a read-only or deny rule named through a symlink
// that lies in a writable rule's tree, for a sandbox that cannot pin it
// (no mounts): the payload could replace the link, and the host would
// later follow the payload's.
func unpinnableLink(r canonRule, rules []canonRule, cwd string) error {
	abs := paths.Abs(r.Path, cwd)
	if (r.Access != ReadOnly && r.Access != Deny) || abs == r.Canon {
		return nil
	}
	for _, l := range symlinksAlong(abs) {
		if w, ok := cover(rules, l.Path); ok && w.Access == ReadWrite {
			return &RuleError{Rule: r.Rule, Err: fmt.Errorf("%s is a symlink in the writable %s: the payload could replace it, and --isolation landlock cannot pin it (--isolation full does)", l.Path, w.Canon)}
		}
	}
	return nil
}
