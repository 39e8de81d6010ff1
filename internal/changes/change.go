package changes

// Kind is what a change does to a host path.
type Kind int

const (
	// Added makes a path the host does not have.
	Added Kind = iota + 1
	// Modified changes or replaces what the host has at the path.
	Modified
	// Deleted removes the host's path (a directory with what it holds).
	Deleted
)

func (k Kind) String() string {
	return map[Kind]string{Added: "A", Modified: "M", Deleted: "D"}[k]
}

// Change is one path an overlay's upper layer changes.
type Change struct {
	Kind Kind
	Host string // the host path it changes
	Path string // where the sandbox showed it
	Dir  bool   // what ends up there (or is deleted) is a directory
	// Conflict says what changed on the host since the run began, where
	// applying this would go against it; Refused why it cannot be applied
	// at all (a named pipe, a socket, a device). Empty when neither.
	Conflict, Refused string

	source // where it was found; Linux only
}
