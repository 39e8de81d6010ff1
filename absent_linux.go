package nsrun

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/absent"
)

// watchAbsent starts watching the names a sandbox must not create, before
// the payload exists; when one appears the watcher removes it and the
// sandbox is ended at once.
func (s *sysCmd) watchAbsent(c *Cmd, prep *prepared) error {
	if len(prep.absent) == 0 {
		return nil
	}
	targets := make([]absent.Target, 0, len(prep.absent))
	for _, a := range prep.absent {
		targets = append(targets, absent.Target{Dir: a.Dir, Name: a.Name, Why: a.Why})
	}
	w, err := absent.Watch(targets)
	if err != nil {
		return &SetupError{Code: ExitSetup, Op: "keep git's names absent", Err: err}
	}
	s.watcher = w
	c.logf("watching %d names that must stay absent in %d directories", len(targets), countDirs(targets))
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
		a := AppearedReport{Path: f.Path(), Kind: f.Kind, Why: f.Why, Removed: f.Removed}
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

func describeFound(f absent.Found) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s appeared", f.Path())
	if f.Why != "" {
		fmt.Fprintf(&b, " (%s)", f.Why)
	}
	switch {
	case f.Removed:
		b.WriteString(" and was removed")
	case f.Err != nil:
		fmt.Fprintf(&b, " and could not be removed: %v; check it before running git there", f.Err)
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
