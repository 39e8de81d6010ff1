// Package changes keeps, lists and applies what a sandbox wrote in its
// overlays: the upper layers of overlayfs mounts kept in a directory of
// the caller's (nsrun's --keep-changes).
//
// A kept directory holds a manifest (Manifest), and for each overlay a
// numbered directory with its upper and work directories. overlayfs in a
// user namespace marks its upper layer with user.overlay.* attributes: a
// whiteout (a 0:0 character device) is a deletion, an opaque directory
// (user.overlay.opaque "y") one made anew where the lower had one, and a
// file copied up from the lower layer has user.overlay.origin.
//
// What is guaranteed:
//   - Scan reads the layers without following a symlink and lists each
//     change against the host directory the overlay showed: added,
//     modified (content, mode or link target; a copy-up that changed
//     nothing is not one), deleted; a directory made anew over the host's
//     deletes what it held;
//   - a host file changed since the run began (its ctime, which no
//     process can set back, is at or after the time the manifest was
//     made, less a margin for the kernel's coarse clock) is a conflict,
//     and Apply then changes nothing at all;
//   - Apply writes as its caller, walking the host directory from the top
//     of the overlay without following a symlink (one put there since is
//     a conflict), replaces each file through a new file renamed over it,
//     makes no set-uid or set-gid file, copies no extended attribute, and
//     refuses named pipes, sockets and devices.
//
// What it cannot do: a host file deleted during the run and recreated by
// the payload reads as an addition; a change made within the margin before
// the run began is taken for one made during it (a conflict, never a lost
// change). Apply is not atomic across files: an error part way (a full
// disk) leaves the changes before it applied, and says which. Only Linux
// has these overlays: elsewhere Scan and Apply fail.
package changes
