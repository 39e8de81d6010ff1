// Package plan decides, on Linux, what a sandbox is made of: from a policy
// the root package has lowered into plain values, it computes the
// Landlock ruleset, the seccomp filters and what the report says of them.
// It never starts, signals or reads a running sandbox: what it needs of
// one is handed in, and its results are values the root package raises
// into its public Report and errors.
//
// Its functions read the host's files (to stat, list and resolve paths)
// and ask the kernel what it supports (the Landlock ABI), nothing more.
package plan
