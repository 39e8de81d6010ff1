// Package ns holds what nsrun needs from Linux namespaces and credentials:
// the clone flags of a sandbox, the single-line uid/gid maps, the host
// settings that forbid unprivileged user namespaces, bringing up the
// loopback interface of a new network namespace (and giving it more
// addresses), and dropping every
// capability before the payload starts.
//
// Guarantees: DropPrivileges leaves the calling thread with NO_NEW_PRIVS set,
// empty effective, permitted, inheritable, ambient and bounding capability
// sets, and the securebits that stop a uid-0 payload from regaining
// capabilities at execve. Children forked from that thread inherit all of it.
//
// Kernel minimums: user namespaces for unprivileged users (3.8, often
// restricted by distribution settings, see Forbidder), ambient capabilities
// (4.3), cgroup namespaces (4.6).
//
// What it cannot do: capabilities are per thread, so DropPrivileges affects
// only the calling thread; callers fork the payload from that same locked
// thread and make themselves non-dumpable so the payload cannot borrow the
// other threads' capabilities through ptrace.
package ns
