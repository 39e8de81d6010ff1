// Package sandbox is the running sandbox as its parent holds it (Linux):
// the cgroup, the pipes and standard streams of its first process, its
// pseudo-terminal and the job control between it and the caller's
// terminal, the fork of that process (directly, or through the fork
// helper), the hand-off of its spec, the listen() checks, the watcher of
// names kept absent, the tracer of --trace-denials, the filtered
// network's server, and the wait with what the sandbox used; and the
// probe of what this host can enforce (ProbeHost).
//
// It knows no policy: its caller (the root package) plans the sandbox
// while the first process boots, from what Facts says of it, and raises
// what Wait returns into its report and errors. A sandbox goes through
//
//	New → Fork → (the caller plans) → Send → Await → Wait → Finish
//
// and Abort ends one whose payload never started, at any step after New.
// Signal, Terminate, Kill and Resize may be called from any goroutine
// once Send has begun.
package sandbox
