// Package supervise is the supervisor of a sandbox built from Landlock and
// seccomp alone: it answers the calls the seccomp filter hands it
// (seccomp.LandlockOnly) for what Landlock does not check.
//
// Guarantees, for the processes under the filter:
//   - connect(2) reaches a pathname unix socket only when the socket lies
//     in a writable path of the policy (its own writable directories and
//     private temporary directory); abstract addresses and inet, inet6 and
//     netlink sockets are connected from a thread whose Landlock domain
//     makes the kernel decide as it would for the payload (abstract
//     sockets of the sandbox only, the same port rules);
//   - listen(2), where it is handed over (Config.Listen), is performed on
//     the caller's very socket only as Config.Listen decides (a TCP
//     socket bound to an allowed port);
//   - chmod, chown, utimes, setxattr and removexattr calls and the
//     chattr ioctls change only files in a writable path, or files that
//     have no name at all (memfd, unlinked files, pipes);
//   - prlimit64, setpriority, ioprio_set and sched_set* change only the
//     calling process or thread;
//   - in the directories the payload's Landlock rules cannot let it
//     change (those on the way to a protected path), entries are created,
//     removed, renamed, linked and opened for writing as the policy
//     allows, and the protected paths and the directories holding them
//     keep their names; every other such call goes to the kernel, where
//     Landlock checks it.
//
// Nothing the payload's memory holds is read twice: the supervisor copies
// each argument once, resolves paths itself (from the caller's working
// directory, with /proc/self meaning the caller), opens the files the
// caller's descriptors refer to through /proc/TID/fd, checks the object it
// opened and performs the call on that object; a connect or a listen takes
// the caller's very socket with pidfd_getfd. Only calls decided by register
// values alone are let through to the kernel
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE). Calls are performed on threads
// without capabilities, so a root supervisor gives the payload nothing it
// did not have.
//
// Kernel minimums: 5.6 (pidfd_getfd, for connect and listen; container
// profiles that refuse it leave the caller to refuse what connects would
// need checking); 5.19 for the killable wait that keeps a caught signal
// from restarting a call already performed (older kernels: a connect
// performed twice answers as the first did). A caller whose memory the
// supervisor may not read (not dumpable) gets EPERM.
//
// What it cannot do: a peer of a unix socket the supervisor connected sees
// the supervisor's pid in SO_PEERCRED; calls that name another process of
// the sandbox are refused (its pid could be reused by a host process
// between the check and the call).
package supervise
