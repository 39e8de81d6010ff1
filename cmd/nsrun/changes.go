package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nsrun/nsrun"
)

// changesCommand is nsrun changes [apply] DIR: what the overlays of a run
// with --keep-changes DIR changed, and writing that onto the host.
func changesCommand(args []string, stdout, stderr *os.File) int {
	apply := len(args) > 0 && args[0] == "apply"
	if apply {
		args = args[1:]
	}
	name := "changes"
	if apply {
		name = "changes apply"
	}
	if len(args) != 1 || args[0] == "" {
		fmt.Fprintf(stderr, "nsrun: %s: want one directory (nsrun changes DIR, nsrun changes apply DIR)\n", name)
		return nsrun.ExitSetup
	}
	dir := args[0]
	if !apply {
		cs, err := nsrun.ReadChanges(dir)
		if err != nil {
			fmt.Fprintf(stderr, "nsrun: %s %s: %v\n", name, dir, oneLine(err.Error()))
			return nsrun.ExitSetup
		}
		listChanges(stdout, cs)
		return 0
	}
	cs, err := nsrun.ApplyChanges(dir)
	if err != nil {
		if list, _ := nsrun.ReadChanges(dir); len(list) > 0 && len(cs) == 0 {
			// What stood in the way, each on its line.
			var bad []nsrun.Change
			for _, c := range list {
				if c.Conflict != "" || c.Refused != "" {
					bad = append(bad, c)
				}
			}
			listChanges(stderr, bad)
		}
		fmt.Fprintf(stderr, "nsrun: %s %s: %v\n", name, dir, oneLine(err.Error()))
		if errors.Is(err, os.ErrNotExist) {
			return nsrun.ExitSetup
		}
		return 1
	}
	listChanges(stdout, cs)
	return 0
}

// listChanges prints one line per change, as git status --short does: the
// kind (A, M, D), "!" where it conflicts with the host and "?" where it
// cannot be applied, the host path (a directory with a slash), and why.
func listChanges(w io.Writer, cs []nsrun.Change) {
	for _, c := range cs {
		mark, why := " ", ""
		switch {
		case c.Conflict != "":
			mark, why = "!", "  ("+c.Conflict+")"
		case c.Refused != "":
			mark, why = "?", "  ("+c.Refused+")"
		}
		p := c.Path
		if c.Dir {
			p += "/"
		}
		fmt.Fprintf(w, "%s%s %s%s\n", c.Kind, mark, oneLine(p), oneLine(why))
	}
}
