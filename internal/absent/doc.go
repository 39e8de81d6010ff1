// Package absent keeps names absent from directories a sandbox can write,
// from outside the sandbox: no kernel mechanism available without
// privilege can forbid creating one name in a writable directory while
// allowing others (a mount needs an existing file; Landlock and seccomp do
// not see names), so a Watcher watches each directory with inotify and,
// when a name appears, removes it (without following symlinks) and tells
// the caller, who ends the sandbox.
//
// What it guarantees: from Watch on, every creation or rename of a watched
// name is seen (an overflowing event queue triggers a full check), and
// Sweep, run once nothing in the sandbox is left, removes whatever remains.
// What it cannot do: the name exists from its creation until the watcher
// has removed it (tens of microseconds on an idle machine; see the
// benchmark), and a process outside the sandbox can read it meanwhile.
// The directories must be held in place by the caller (a directory moved
// away is reported as a violation: its names cannot be watched any more).
//
// Kernel minimum: inotify (2.6.13), openat2 (5.6).
package absent
