package nsrun

import (
	"path/filepath"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
)

// absentTargets are the names to keep absent, each watched from the
// highest directory above it whose entries the payload can change (rules
// are canonical): every directory from there down to the name's is on its
// way, and must stay the one it was.
func absentTargets(names []gitguard.Absent, rules []canonRule) []absent.Target {
	eff, _ := effective(rules)
	writable := func(p string) bool {
		r, ok := cover(eff, p)
		return ok && r.Access == ReadWrite
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

// reportAppeared puts what the watcher of names kept absent found in the
// report.
func (c *Cmd) reportAppeared(found []absent.Found) {
	for _, f := range found {
		a := AppearedReport{Path: f.Path(), Kind: f.Kind, Why: f.Why, Removed: f.Removed, Way: f.Way}
		if f.At != f.Path() {
			a.At = f.At
		}
		if f.Err != nil {
			a.Error = f.Err.Error()
		}
		c.report.Absent.Appeared = append(c.report.Absent.Appeared, a)
	}
}
