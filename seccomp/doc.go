// Package seccomp builds and loads nsrun's seccomp filters as classic BPF.
//
// So far it has one filter, MPTCP: it refuses socket(..., IPPROTO_MPTCP)
// with EPROTONOSUPPORT (programs such as Go's net package then fall back to
// plain TCP), because Landlock's TCP port rules do not cover MPTCP and
// would be bypassed by it. Calls from another architecture than the
// native one, and x32 calls on amd64, kill the process: a denylist that let
// them through would be bypassed by them. The default filter of the
// seccomp layer comes with issue 4.
//
// Load installs a filter on the calling thread only (no TSYNC), after
// setting NO_NEW_PRIVS; callers lock the thread and start the payload from
// it. Kernel minimum: 3.17 (seccomp(2)); amd64 and arm64.
package seccomp
