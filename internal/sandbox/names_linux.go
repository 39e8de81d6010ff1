package sandbox

import (
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/ptrace"
)

// Tracer is what Hooks.Trace gives the tracer to tell of every refused
// call it sees; Found is what the watcher of names kept absent found
// (End.Found). They are named here for the root package, which drives the
// sandbox without the mechanisms' own packages.
type (
	Tracer = func(ptrace.Event)
	Found  = absent.Found
)

// CheckID refuses an id that the sandbox's user namespace cannot map.
func CheckID(id int64) error { return ns.CheckID(id) }
