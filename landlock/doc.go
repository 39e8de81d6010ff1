// Package landlock is nsrun's Landlock layer: which access rights a sandbox
// asks the kernel for, which of them this kernel can enforce (and which it
// drops), the rules that grant them on paths and ports, and applying the
// ruleset to the calling thread.
//
// The decisions are pure (Decide, Rules) and tested for every ABI; Apply
// and ABI touch the kernel. The rights are the kernel's own bits, so a rule
// list means the same on every system, and go-landlock's syscall package
// carries them to the kernel. go-landlock's best-effort mode is not used:
// it reports nothing about what it dropped, and on an ABI-1 kernel a rule
// asking for REFER turns all of it into a silent no-op. Decide instead
// intersects what was asked with what the kernel offers and says exactly
// what is left out.
//
// Guarantees: after Apply, the calling thread and the processes it starts
// can use files only as the rules allow, bind and connect TCP only on the
// listed ports (when asked, ABI 4), and reach neither abstract unix sockets
// nor processes outside the sandbox's Landlock domain (ABI 6). Rules never
// follow a symlink: a symlink found where a rule would go gets no rule, a
// symlink on the way to it is an error (rule paths are canonical), and so
// is a rule path that names another file than the one it was made for
// (Identity), so a tree changed between planning and enforcing cannot
// move a rule onto another directory.
//
// Kernel minimums: 5.13 (ABI 1); REFER 5.19, TRUNCATE 6.2, TCP 6.7,
// IOCTL_DEV 6.10, scopes 6.12.
//
// What it cannot do: Landlock only adds rights, so a subtree cannot be taken
// out of a granted tree; Rules grants a tree minus a hole by granting each
// sibling along the way instead, which covers what exists when the rules are
// made, and the directories along the way keep only what cannot reach the
// hole (Way): nothing can be created, removed or renamed directly in them,
// and the names in a denied directory below a listed one can be listed.
// UDP is not covered below ABI 10; MPTCP, SCTP, ping and raw sockets, data
// sent with TCP Fast Open (no connect()) and listen() on a socket never
// bound (no bind()) are not covered at all: the caller closes those with
// seccomp. Reads through file descriptors opened before Apply
// keep working.
package landlock
