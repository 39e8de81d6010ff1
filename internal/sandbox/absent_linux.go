package sandbox

import (
	"fmt"
	"strings"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/launch"
)

// watchAbsent starts watching the names a sandbox must not create, before
// the payload exists; when one appears, or a directory on its way is
// moved, removed or replaced, the watcher removes what makes its path
// resolve and the sandbox is ended at once.
func (s *Sandbox) watchAbsent(targets []absent.Target) error {
	if len(targets) == 0 {
		return nil
	}
	w, err := absent.Watch(targets)
	if err != nil {
		return &Error{Code: launch.ExitSetup, Op: "keep git's names absent", Err: err}
	}
	s.watcher = w
	s.logf("watching %d names that must stay absent in %d directories", len(targets), countDirs(targets))
	go w.Run(func(f absent.Found) {
		if s.endFor(f) {
			s.logf("%s: the sandbox was ended", describeFound(f))
		}
	})
	return nil
}

// sweepAbsent removes what is left once the sandbox is gone, and returns
// what appeared and one line saying so, if anything did.
func (s *Sandbox) sweepAbsent() ([]absent.Found, string) {
	if s.watcher == nil {
		return nil, ""
	}
	s.watcher.Sweep()
	found := s.watcher.All()
	if len(found) == 0 {
		return nil, ""
	}
	msg := s.endedFor()
	if msg == "" {
		msg = describeFound(found[0]) + " (found after the payload ended)"
	} else {
		msg += "; the sandbox was ended"
	}
	if len(found) > 1 {
		msg += fmt.Sprintf(", and %d more (see the report)", len(found)-1)
	}
	return found, msg
}

// describeFound is one line: what appeared, or which directory on the
// way changed, and what nsrun removed.
func describeFound(f absent.Found) string {
	var b strings.Builder
	if f.Way == "" {
		fmt.Fprintf(&b, "%s appeared", f.Path())
	} else {
		fmt.Fprintf(&b, "%s, on the way to %s, was moved, removed or replaced", f.Way, f.Path())
	}
	if f.Why != "" {
		fmt.Fprintf(&b, " (%s)", f.Why)
	}
	it := " and"
	if f.Way != "" && f.At != "" {
		it = fmt.Sprintf("; the %s at %s", f.Kind, f.At)
	}
	switch {
	case f.Removed:
		b.WriteString(it + " was removed")
	case f.Err != nil && f.Way != "" && f.At == "":
		fmt.Fprintf(&b, "; it could not be looked at: %v; check %s before running git there", f.Err, f.Path())
	case f.Err != nil:
		fmt.Fprintf(&b, "%s could not be removed: %v; check it before running git there", it, f.Err)
	}
	return b.String()
}

func countDirs(ts []absent.Target) int {
	dirs := map[string]bool{}
	for _, t := range ts {
		dirs[t.Dir] = true
	}
	return len(dirs)
}
