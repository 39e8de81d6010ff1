// Package cgroup makes the control group of one sandbox: the place its
// processes are born in (CLONE_INTO_CGROUP) and counted, limited and
// killed as one.
//
// What it guarantees:
//   - New makes a fresh cgroup v2 under the caller's own, with the memory
//     (swap off), pids and cpu limits asked for, opened for
//     CLONE_INTO_CGROUP so that no process of the sandbox ever runs
//     outside it (ForkExec starts it there; where clone3 is refused, it
//     starts it outside and MoveFD moves it in before it runs anything of
//     the sandbox's); or, where the host keeps those controllers on
//     cgroup v1 (a hybrid host), one v1 directory per controller that the
//     caller moves its first process into before that process runs
//     anything.
//     It never returns a group with fewer limits than asked for: it fails
//     with an *Error naming the controller and the reason.
//   - NewKill makes an empty cgroup v2 whose cgroup.kill ends every
//     process in it, for sandboxes without a PID namespace.
//   - Remove deletes the group once its processes are gone; New and
//     NewKill first remove the groups of nsrun processes that died
//     before they could.
//
// Kernel minimums: cgroup v2 with CLONE_INTO_CGROUP (5.7), memory.peak
// (5.19) for Usage's peak, cgroup.kill (5.14) for Kill. cgroup v1 has no
// CLONE_INTO_CGROUP, no peak of the whole group's memory on every kernel,
// and no kill file.
//
// What it cannot do: make a cgroup where the caller may not write (an
// unprivileged user needs a delegated subtree: systemd-run --user --scope
// -p Delegate=yes), or enable a controller in a cgroup that has processes
// of its own (cgroup v2's "no internal processes" rule).
package cgroup
