package rawinit

import (
	"encoding/binary"
	"fmt"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/landlock"
)

// Kinds of step (Program.Explain) whose failure the Go init words with
// the path's story, not the bare errno.
const (
	explainMountPoint = "mount point" // a mount's target, opened in the new root
	explainSource     = "source"      // a bind's host source
	explainRule       = "landlock rule"
	// A Landlock rule's later calls, in steps named as the rule's.
	explainRuleStat = "landlock rule fstat"
	explainRuleAdd  = "landlock_add_rule"
)

// words is pathWords for step n of p, and landlock.Apply's words for a
// rule's landlock_add_rule, whose rights are read back from the struct
// the step's call passes.
func (p *Program) words(n int, step string, errno syscall.Errno) (msg string, wrapped syscall.Errno, ok bool) {
	kind := p.Explain[n]
	if kind != explainRuleAdd {
		return pathWords(kind, step, errno)
	}
	var access landlock.FS
	for _, op := range p.Ops {
		if op.Step == n && op.Code == opSys && op.Nr == unix.SYS_LANDLOCK_ADD_RULE {
			access = landlock.FS(binary.NativeEndian.Uint64(p.Bufs[op.Args[2].V].Data))
			break
		}
	}
	return fmt.Sprintf("landlock_add_rule %s %s: %v", strings.TrimPrefix(step, "landlock rule on "), access, errno), errno, true
}

// pathWords words a failure with errno at a step of kind, named step, as
// the Go init (package mounts, landlock.Apply) does: a symlink on the way
// or another file at the path means the tree changed after it was
// checked. wrapped is the errno the message carries (0 for the init's own
// findings); ok is false where kind has no words of its own for errno.
func pathWords(kind, step string, errno syscall.Errno) (msg string, wrapped syscall.Errno, ok bool) {
	switch {
	case kind == explainRuleStat:
		return fmt.Sprintf("%s: fstat: %v", step, errno), errno, true
	case kind == explainRule:
		p := strings.TrimPrefix(step, "landlock rule on ")
		switch errno {
		case syscall.ELOOP:
			return "landlock rule on " + p + ": the path changed during start-up (a symlink is now on the way); nothing ran", 0, true
		case syscall.ESTALE:
			return "landlock rule on " + p + ": the path changed during start-up (it is another file now); nothing ran", 0, true
		}
		return fmt.Sprintf("landlock rule on %s: open: %v", p, errno), errno, true
	case errno == syscall.ESTALE:
		// The init's own finding, no errno of the kernel's.
		return step + ": the path now names another file than the one checked", 0, true
	case errno != syscall.ELOOP:
		return "", 0, false
	case kind == explainMountPoint:
		return step + ": " + errno.Error() + " (a symlink is in the way; nsrun never mounts through one)", errno, true
	case kind == explainSource:
		return step + ": " + errno.Error() + " (a symlink appeared after the path was checked)", errno, true
	}
	return "", 0, false
}
