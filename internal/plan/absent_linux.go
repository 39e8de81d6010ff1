package plan

import (
	"path/filepath"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
	"github.com/nsrun/nsrun/mounts"
)

// AbsentTargets are the names to keep absent, each watched from the
// highest directory above it whose entries the payload can change (eff are
// the effective rules, canonical): every directory from there down to the
// name's is on its way, and must stay the one it was.
func AbsentTargets(names []gitguard.Absent, eff []Rule) []absent.Target {
	writable := func(p string) bool {
		r, ok := Cover(eff, p)
		return ok && r.Access == mounts.ReadWrite
	}
	out := make([]absent.Target, 0, len(names))
	for _, a := range names {
		out = append(out, absent.Target{Dir: a.Dir, Name: a.Name, Why: a.Why, Root: wayRoot(a.Dir, writable)})
	}
	return out
}

// wayRoot is the highest directory from dir up whose parent the payload
// cannot change (writable says where it can): nothing can rename, remove
// or replace it.
func wayRoot(dir string, writable func(string) bool) string {
	for dir != "/" && writable(filepath.Dir(dir)) {
		dir = filepath.Dir(dir)
	}
	return dir
}
