package nsrun

import (
	"fmt"

	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/plan"
)

// unpinnableLink refuses a read-only or deny rule named through a symlink
// that lies in a writable rule's tree, for a sandbox that cannot pin it
// (no mounts): the payload could replace the link, and the host would
// later follow the payload's.
func unpinnableLink(r canonRule, rules []canonRule, cwd string) error {
	abs := paths.Abs(r.Path, cwd)
	if (r.Access != ReadOnly && r.Access != Deny) || abs == r.Canon {
		return nil
	}
	for _, l := range plan.SymlinksAlong(abs) {
		if w, ok := cover(rules, l.Path); ok && w.Access == ReadWrite {
			return &RuleError{Rule: r.Rule, Err: fmt.Errorf("%s is a symlink in the writable %s: the payload could replace it, and --isolation landlock cannot pin it (--isolation full does)", l.Path, w.Canon)}
		}
	}
	return nil
}
