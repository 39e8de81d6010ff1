// Package seccomp builds nsrun's seccomp filters and loads them.
//
// A Profile is decided in Go (Default, ParseOCI), compiled to classic BPF
// in the launcher (Compile, pure Go: an architecture check, a binary search
// on the call's number, then each call's rules, 64-bit argument conditions
// as two 32-bit halves), and loaded by the sandbox's init with the raw
// seccomp(2) call on the thread that starts the payload (Load). Calls are
// named from tables generated from golang.org/x/sys (go generate); the
// tests check both the tables and every decision against libseccomp's
// compilation of the same profiles, which is the reference but not linked:
// cgo would cost each of nsrun's two processes ~0.7 ms at start.
//
// The default filter is a denylist: everything not listed is allowed.
// Each entry, with the errno the call then returns:
//
//   - add_key, request_key, keyctl (EPERM): kernel keyrings are not
//     namespaced; the host user's keys would be reachable.
//   - bpf, perf_event_open, lookup_dcookie (EPERM): expose and change
//     kernel state.
//   - userfaultfd (EPERM): stalls the kernel at will, a building block of
//     kernel exploits.
//   - io_uring_setup, io_uring_enter, io_uring_register (EPERM): run
//     operations no syscall filter or socket rule sees.
//   - init_module, finit_module, delete_module, kexec_load,
//     kexec_file_load (EPERM): loading kernel code.
//   - mount, umount2, pivot_root, chroot (EPERM); the new mount API —
//     open_tree, move_mount, fsopen, fsconfig, fsmount, fspick,
//     mount_setattr, open_tree_attr — (ENOSYS, as if absent, so tools fall
//     back to mount(2)): the view is the launcher's to make.
//   - setns (EPERM), and unshare and clone with any CLONE_NEW* flag, one
//     rule per flag on the low 32 bits (EPERM): a new user namespace gives
//     capabilities back.
//   - clone3 (ENOSYS): its flags are in memory where no filter can check
//     them; libc falls back to clone.
//   - open_by_handle_at (EPERM): opens files around every path rule (the
//     "shocker" escape).
//   - settimeofday, clock_settime, clock_adjtime (EPERM): the clock is the
//     host's.
//   - reboot, swapon, swapoff, acct, quotactl, quotactl_fd, syslog,
//     vhangup, iopl, ioperm, nfsservctl, uselib, ustat, sysfs, _sysctl,
//     fanotify_init, lsm_set_self_attr (EPERM): host-wide or obsolete.
//   - mbind, set_mempolicy, migrate_pages, move_pages,
//     set_mempolicy_home_node (EPERM): NUMA placement affects others.
//   - modify_ldt (EPERM): a long history of kernel bugs, no modern use.
//   - personality with any flag bit set (EPERM), the query 0xffffffff
//     allowed: flags turn off randomisation and other defences.
//   - ioctl TIOCSTI and TIOCLINUX, compared on the low 32 bits (EPERM): they
//     push input into a terminal the sandbox holds, the caller's when it is
//     passed as it is (CVE-2017-5226, CVE-2019-10063); a private pty makes
//     it the sandbox's own, and the rule stays as defence in depth.
//   - socket and socketpair with a family other than AF_UNIX, AF_INET,
//     AF_INET6, AF_NETLINK, compared on the low 32 bits (EAFNOSUPPORT):
//     vsock, packet, alg and the rest reach the host or old code.
//
// With Options.AllowUserns the namespace and mount entries are left out
// (clone3 stays ENOSYS, so clone's flags remain checkable): a nested
// sandbox mounts only in namespaces of its own. ptrace stays allowed:
// debuggers work inside, the PID namespace bounds it, and the init reaps
// traced children with __WALL.
//
// Every filter kills the process on a call from another architecture, and
// on amd64 on an x32 call, even where a profile lists that architecture
// (Compiled.Unfiltered says so): a denylist is bypassed by the numbers of
// another ABI otherwise, and nsrun filters the native ABI only.
//
// Guard is nsrun's own filter, loaded beside whatever profile a sandbox
// has: no set-uid or set-gid bits on files, and what the network options
// need from seccomp (no inet socket at all without a network namespace;
// with port rules, only TCP and UDP, no TCP Fast Open, and listen() handed
// to a supervisor through SECCOMP_RET_USER_NOTIF, LoadListener, Receive
// and Respond). Its rules and their reasons are in its documentation.
//
// LandlockOnly is the filter a sandbox without namespaces loads beneath
// its profile and the guard for what Landlock does not check: it hands
// connect, listen (where binding is restricted), the chmod, chown, utimes
// and xattr calls, the chattr ioctls, pid-taking calls on other pids and,
// where asked, the calls that create, remove, rename or open for writing a
// directory entry to a supervisor (Receive, Respond, RespondFd, Continue),
// and refuses the unix sockets it cannot check and io_uring. It is the
// one filter of such a sandbox that has a listener. The kernel applies the
// strictest action of stacked filters, and of two errnos the newest
// filter's: loaded first, it lets an errno of the profile or the guard win
// over a notification and over its own errnos.
//
// Profiles in the OCI runtime-spec, Docker, podman or CRI-O format are
// applied whole or refused: unknown fields, actions, operators or
// architectures, user notification and filter flags are errors, as is a
// restricting rule on a name no Linux architecture has; an allowing rule
// for such a name is left out, which keeps the call denied, and a call only
// other architectures have is passed over. Conditional rules (includes and
// excludes) are decided for a payload without capabilities, on the native
// architecture and the running kernel; podman's errno names (errno,
// defaultErrno) must agree with the numbers beside them.
//
// Several rules for one call resolve as libseccomp resolves them for runc
// and crun, which hand it a profile's rules in order: a rule with the
// default action is left out; the first unconditional rule decides and
// every other rule for the call is dropped (Compiled.Dropped lists those
// with another action: podman's profile allows setns, then refuses it to a
// payload without CAP_SYS_ADMIN, and setns stays allowed, as in podman);
// otherwise whichever conditional rule holds decides. Conditional rules
// with different actions must be disjoint (no arguments satisfy two of
// them), and a rule may have one condition per argument: otherwise the
// outcome depends on how libseccomp merges them, and the profile is
// refused. MaskedEq compares (arg & mask) with (value & mask), as
// libseccomp does.
//
// Kernel minimums: 3.17 (seccomp(2)), 4.14 for SECCOMP_RET_KILL_PROCESS.
// Architectures: amd64 and arm64; others get an error, not a weaker filter.
//
// What it cannot do: a denylist allows every call newer than itself:
// review it when the kernel grows. Filters apply to the thread that loads
// them and its children only.
package seccomp
