package nsrun

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

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

// watchAbsent starts watching the names a sandbox must not create, before
// the payload exists; when one appears, or a directory on its way is
// moved, removed or replaced, the watcher removes what makes its path
// resolve and the sandbox is ended at once.
func (s *sysCmd) watchAbsent(c *Cmd, prep *prepared) error {
	if len(prep.absent) == 0 {
		return nil
	}
	w, err := absent.Watch(prep.absent)
	if err != nil {
		return &SetupError{Code: ExitSetup, Op: "keep git's names absent", Err: err}
	}
	s.watcher = w
	c.logf("watching %d names that must stay absent in %d directories", len(prep.absent), countDirs(prep.absent))
	go w.Run(func(f absent.Found) {
		s.mu.Lock()
		first := s.killedFor == ""
		if first {
			s.killedFor = describeFound(f)
		}
		s.mu.Unlock()
		_ = s.signal(unix.SIGKILL)
		s.killGroup()
		if first {
			c.logf("%s: the sandbox was ended", describeFound(f))
		}
	})
	return nil
}

// endedByWatcher says whether the watcher ended the sandbox.
func (s *sysCmd) endedByWatcher() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killedFor != ""
}

// sweepAbsent removes what is left once the sandbox is gone, fills the
// report and says what appeared, if anything did.
func (s *sysCmd) sweepAbsent(c *Cmd) string {
	if s.watcher == nil {
		return ""
	}
	s.watcher.Sweep()
	found := s.watcher.All()
	if len(found) == 0 {
		return ""
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := s.killedFor
	if msg == "" {
		msg = describeFound(found[0]) + " (found after the payload ended)"
	} else {
		msg += "; the sandbox was ended"
	}
	if len(found) > 1 {
		msg += fmt.Sprintf(", and %d more (see the report)", len(found)-1)
	}
	return msg
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
