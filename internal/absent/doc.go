// Package absent keeps names absent from directories a sandbox can write,
// from outside the sandbox: no kernel mechanism available without
// privilege can forbid creating one name in a writable directory while
// allowing others (a mount needs an existing file; Landlock and seccomp do
// not see names), so a Watcher watches with inotify each directory from a
// root the sandbox cannot change down to the name's. When the name appears
// in its directory, it removes it there; when a directory on that way is
// moved, removed or replaced, it walks the way again from the root without
// following symlinks and removes what makes the path resolve (the name, or
// a symlink or other file standing for a directory of the way). Either
// way it tells the caller, who ends the sandbox.
//
// What it guarantees: from Watch on, every creation, rename or removal of
// a watched name, and every move or removal of a watched directory, is
// seen (an overflowing event queue triggers a walk of every way); Sweep,
// run once nothing in the sandbox is left, walks every way again (it
// trusts no directory it opened before) and removes whatever resolves.
// What it cannot do: the name exists from its creation until the watcher
// has removed it (tens of microseconds on an idle machine; see the
// benchmark), and a process outside the sandbox can read it meanwhile; a
// directory on the way that was replaced is reported and what it makes
// resolve removed, but the directory is not put back. The caller holds the
// directories of the way in place (mount pins, Landlock) so that this is
// a second line.
//
// Kernel minimum: inotify (2.6.13), openat2 (5.6).
package absent
