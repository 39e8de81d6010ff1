package supervise

import "strings"

// Policy is where the payload may change things.
type Policy struct {
	// Rules are canonical paths with whether the payload may write there;
	// the deepest rule covering a path decides, and a path no rule covers
	// is not writable.
	Rules []Rule
	// Protected are the read-only and denied paths inside writable ones:
	// they, and the directories that hold them, keep their names (no
	// removing, renaming or replacing them, which would take the
	// protection along).
	Protected []string
}

// Rule says whether Path and what lies beneath it (down to a deeper rule)
// are writable.
type Rule struct {
	Path     string
	Writable bool
}

// Writable reports whether the canonical path p is writable under the
// policy.
func (pol Policy) Writable(p string) bool {
	depth, w := -1, false
	for _, r := range pol.Rules {
		if d := depthOf(r.Path); d > depth && within(p, r.Path) {
			depth, w = d, r.Writable
		}
	}
	return w
}

func depthOf(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

func within(p, base string) bool {
	return base == "/" || p == base || strings.HasPrefix(p, base+"/")
}
