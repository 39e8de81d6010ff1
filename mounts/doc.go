// Package mounts plans and builds the filesystem view of a sandbox.
//
// The plan is a pure function of the rules (Plan); building it (Build, Linux
// only) touches the kernel and must run inside fresh user and mount
// namespaces, as the process that holds CAP_SYS_ADMIN there.
//
// What a built view guarantees:
//   - the root (the host's / or another directory) is a recursive bind that is
//     read-only, nosuid and nodev on every submount present at build time;
//   - every rule's path appears at the same place inside; the deepest rule
//     covering a path decides what is seen there;
//   - binds are made from an O_PATH descriptor opened without following any
//     symlink and checked against the device and inode the caller recorded,
//     then checked again after mounting, so a path swapped for a symlink
//     between planning and building is refused rather than followed;
//   - mount points under the new root are resolved with openat2
//     RESOLVE_IN_ROOT|RESOLVE_NO_SYMLINKS: a symlink never redirects a mount;
//   - /dev is a fresh tmpfs with only null, zero, full, random, urandom, tty,
//     a new devpts instance, ptmx, shm and the fd/std* links (and console,
//     a link to pts/0, when the sandbox has a terminal); /proc is a new
//     procfs of the caller's PID namespace with sys, sysrq-trigger, irq and
//     bus read-only, and with the kernel's root-only reports hidden
//     (Input.ProtectProc); /tmp and /run are fresh tmpfs unless a rule says
//     otherwise;
//   - a read-only or deny rule inside a writable host tree keeps its place:
//     every directory between them is pinned (bound onto itself), since a
//     mount travels with a renamed parent and only a mount point cannot be
//     renamed, removed or replaced;
//   - a mount of a kernel filesystem (KernelFS) that a shown host tree
//     carries, as listed in Input.KernelMounts, is covered empty and
//     read-only unless a rule names it;
//   - after pivot_root the old root is detached: no setup directory remains.
//
// Kernel minimums: open_tree, move_mount and fsopen (5.2), openat2 (5.6).
// mount_setattr (5.12) applies attributes to a whole tree in one call; on
// older kernels each mount of the tree is remounted from /proc/self/mountinfo.
//
// Propagation: every mount of the sandbox is private, so nothing made
// there reaches the host and no mount the host makes later (under a bound
// path, or a shared mount of its own) reaches the sandbox.
//
// What it cannot do: a pathname unix socket in a visible directory stays
// connectable through a read-only bind; hide such directories with a deny
// rule.
package mounts
