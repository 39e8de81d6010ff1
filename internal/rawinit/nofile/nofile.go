// Package nofile keeps the soft RLIMIT_NOFILE this process started with.
//
// Go's package syscall raises its process's soft limit to the hard limit
// at start, keeps the original to itself and restores it in every process
// it executes (go.dev/issue/46279). The raw init (internal/rawinit) is a
// clone, not such a process: to give its payload the limit the Go init's
// payload gets, it needs the original, which nothing exported tells. This
// package reads it before syscall raises it: it imports nothing, so by
// the language's initialization order (packages sorted by import path,
// the first whose imports are initialized goes first; since Go 1.21) it
// is initialized before syscall, whose path sorts after it.
//
// What it guarantees: Original gives the limits as the kernel gave them
// to this process, read by one raw prlimit64 call before any Go package
// but the runtime was initialized. It cannot tell what another process
// changed since (syscall's restore makes the same guess: only where the
// limit is still the one it set). Linux on amd64 and arm64; elsewhere
// Original reports nothing.
package nofile

var (
	lim  [2]uint64 // soft, hard
	read = prlimitNofile(&lim) == 0
)

// Original is the RLIMIT_NOFILE this process started with, and whether it
// could be read.
func Original() (soft, hard uint64, ok bool) { return lim[0], lim[1], read }
