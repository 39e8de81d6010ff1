package nsrun

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
