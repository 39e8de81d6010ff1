package nsrun

import (
	"fmt"
	"path"
	"sort"

	"github.com/nsrun/nsrun/internal/paths"
)

// restrictiveness orders accesses for ties: the more restrictive wins. A
// copy, a device and a symlink are read-only leaves (rules that conflict
// with them are refused before precedence); a directory gives way to
// anything.
func restrictiveness(a Access) int {
	switch a {
	case Deny:
		return 5
	case ReadOnly, Copy, Device, BlockDevice, Symlink:
		return 4
	case Tmpfs:
		return 3
	case Overlay:
		return 2
	case ReadWrite:
		return 1
	}
	return 0
}

// writable reports whether an access lets the payload write there (an
// overlay writes nothing to the host, but a read-only rule above it of a
// higher source means the payload may not change what it sees).
func writable(a Access) bool { return a == ReadWrite || a == Overlay }

// Overruled is a rule that did not take effect as written, and why.
type Overruled struct {
	Rule   Rule
	Became Access // 0 when the rule was dropped
	By     Rule
}

func (o Overruled) String() string {
	what := "dropped"
	if o.Became != 0 {
		what = "made " + o.Became.String()
	}
	return fmt.Sprintf("%s (%s): %s by %s (%s)", ruleText(o.Rule), o.Rule.Source,
		what, ruleText(o.By), o.By.Source)
}

// Effective applies the precedence of sources to rules whose paths are
// clean, absolute and canonical: one rule per path, deeper grants of lower
// sources dropped under a deny and made read-only under a read-only rule.
// The result is sorted by path.
func Effective(rules []Rule) (eff []Rule, overruled []Overruled) {
	byPath := make(map[string]Rule, len(rules))
	for _, r := range rules {
		cur, seen := byPath[r.Path]
		if !seen || beats(r, cur) {
			if seen {
				overruled = append(overruled, Overruled{Rule: cur, By: r})
			}
			byPath[r.Path] = r
		} else {
			overruled = append(overruled, Overruled{Rule: r, By: cur})
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		r := byPath[p]
		for d := path.Dir(p); ; d = path.Dir(d) {
			if a, ok := byPath[d]; ok && a.Source.rank() > r.Source.rank() {
				switch {
				case a.Access == Deny:
					overruled = append(overruled, Overruled{Rule: r, By: a})
					delete(byPath, p)
				case a.Access == ReadOnly && writable(r.Access):
					overruled = append(overruled, Overruled{Rule: r, Became: ReadOnly, By: a})
					r.Access = ReadOnly
					byPath[p] = r
				}
			}
			if _, kept := byPath[p]; !kept || d == "/" {
				break
			}
		}
		if r, ok := byPath[p]; ok {
			eff = append(eff, r)
		}
	}
	return eff, overruled
}

// beats reports whether r wins over cur for the same path.
func beats(r, cur Rule) bool {
	if r.Source.rank() != cur.Source.rank() {
		return r.Source.rank() > cur.Source.rank()
	}
	return restrictiveness(r.Access) > restrictiveness(cur.Access)
}

// Resolve is the access a canonical path gets under effective rules (as
// Effective returns them) over a read-only root: the deepest covering
// rule's, and that rule; ok is false when only the root covers the path.
// Every backend's output is tested against it.
func Resolve(eff []Rule, p string) (access Access, by Rule, ok bool) {
	depth := -1
	for _, r := range eff {
		if d := paths.Depth(r.Path); paths.Within(p, r.Path) && d > depth {
			by, ok, depth = r, true, d
		}
	}
	if !ok {
		return ReadOnly, Rule{}, false
	}
	return by.Access, by, true
}
