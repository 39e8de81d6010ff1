package nsrun

import "github.com/nsrun/nsrun/internal/changes"

// Change is one path that a run's overlay changed, kept with
// Policy.KeepChanges: Kind "A" (added), "M" (modified or replaced) or "D"
// (deleted, a directory with what it holds), at the host path Path, which
// the sandbox showed at Inside.
type Change struct {
	Kind   string
	Path   string
	Inside string
	Dir    bool
	// Conflict says what changed on the host since the run began, where
	// applying the change would go against it; Refused why it cannot be
	// applied at all (a named pipe, a socket). Empty when neither.
	Conflict string
	Refused  string
}

// ReadChanges lists what the overlays of a run with Policy.KeepChanges
// dir changed, against the host as it is now: each change's Conflict says
// what changed on the host since that run began, where applying it would
// go against it. Only Linux keeps changes: elsewhere ReadChanges and
// ApplyChanges fail.
func ReadChanges(dir string) ([]Change, error) {
	_, cs, err := changes.Scan(dir)
	return exportChanges(cs), err
}

// ApplyChanges writes what ReadChanges lists onto the host paths, as the
// caller: every file through a new file renamed over it, without set-uid
// or set-gid bits or extended attributes, following no symlink on the
// host. It writes nothing when a change conflicts or cannot be applied
// (the error says which), and refuses to apply a directory twice.
func ApplyChanges(dir string) ([]Change, error) {
	cs, err := changes.Apply(dir)
	return exportChanges(cs), err
}

func exportChanges(cs []changes.Change) []Change {
	out := make([]Change, 0, len(cs))
	for _, c := range cs {
		out = append(out, Change{Kind: c.Kind.String(), Path: c.Host, Inside: c.Path, Dir: c.Dir, Conflict: c.Conflict, Refused: c.Refused})
	}
	return out
}
