package plan

import (
	"io/fs"

	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// Rule is a policy rule made canonical, as the root package lowers it:
// where it applies inside (Canon), and what of the host it shows there.
type Rule struct {
	Path   string // as the policy gave it
	From   string // the host path a bind names, as given
	Access mounts.Access
	Canon  string      // its place inside, every symlink resolved
	Host   string      // the host path it shows at Canon, where that is another place
	Dir    bool        // a directory
	Info   fs.FileInfo // the host file's, or nil for what the sandbox makes
	// Internal: nsrun's own rule, not the caller's.
	Internal bool
	// Source is the root package's Source of the rule, carried back in
	// errors that name the rule.
	Source int
}

// Mapped reports whether the rule shows a host path at another place.
func (r Rule) Mapped() bool { return r.Host != "" && r.Host != r.Canon }

// HostPath is the host path the rule shows at Canon: nsrun's own rules
// show their own place.
func (r Rule) HostPath() string {
	if r.Host == "" {
		return r.Canon
	}
	return r.Host
}

// Cover is the deepest rule whose place is p or above it.
func Cover(rules []Rule, p string) (r Rule, ok bool) {
	return paths.Cover(rules, p, func(r Rule) string { return r.Canon })
}
