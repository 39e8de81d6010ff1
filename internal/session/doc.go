// Package session is the parent side of a session (Linux): one sandbox
// that lives across many commands. It holds the channel to the session's
// init (Conn), the session's life (Life: its end, why it ended, what was
// still running then, the log of every command), a command as its caller
// holds it (Command: its streams and its process), the control socket
// through which the user who started the session reaches it from other
// processes (Listen, Dial), and what nsrun exec decides on Ctrl-Z
// (FindSuspend).
//
// How a command gets exactly the session's confinement: the init of a
// session builds the sandbox as for a one-shot run and confines its own
// locked thread (Landlock, capabilities, no_new_privs, seccomp) as a
// one-shot init does before it forks the payload; it then forks every
// command from that thread, by the same fork and exec
// (internal/launch.serveSession). A command inherits the thread's
// confinement and cannot be given less: a request carries only argv, the
// environment, the directory and three descriptors. The other design, a
// server that is itself the sandbox's first, confined payload and forks
// the commands, would give the same confinement, but the server would be
// a process every command can ptrace or signal (same user, same
// namespaces, dumpable), and with it the channel that starts commands and
// the streams of later ones. The init is pid 1 of the sandbox's PID
// namespace and is not dumpable: nothing inside can trace it, signal it
// with a signal it did not ask for, or reach its descriptors.
//
// Who reaches a session: the control socket is in a 0700 directory of the
// user's (XDG_RUNTIME_DIR/nsrun/sessions, else /run/user/UID/nsrun/sessions,
// else a directory made and checked under the temporary directory), and a
// peer is served only when SO_PEERCRED says it is the same user and it is
// in the holder's PID namespace (a process inside any sandbox with a PID
// namespace of its own is not). The directory is also denied to the
// session itself (the caller adds it to the policy's deny rules), so
// nothing inside can name the socket even where a rule shows its parent.
//
// What it cannot do: a session has no Landlock-only form (NoLandlockOnly
// says why). Kernel minimums are the sandbox's: pidfd_open (5.3).
package session

// NoLandlockOnly is why a session cannot be Landlock-only. The
// Landlock-only supervisor stage stays outside the sandbox's Landlock
// domain (it answers the seccomp filter's notifications), and the one
// process inside that domain and under its filter is the payload. A
// command gets exactly the session's domain and filter only by being
// forked from a process that holds them: that process would be inside
// the sandbox, the same user in the same domain with no PID namespace,
// so every command could trace or signal it and take the channel that
// starts commands (the design the init avoids). A new domain per command
// built from the same rules is not the same domain, and each would need
// a supervisor of its own. And without a PID namespace nothing ends
// every process a command leaves: a subreaper adopts orphans, but a
// process that forks as it is killed can outrun it.
const NoLandlockOnly = "a session cannot be Landlock-only: commands could get the session's exact Landlock domain and seccomp filter only from a process inside the sandbox that every command could trace or signal, and without a PID namespace nsrun cannot be sure to end every process a command leaves; use the default isolation (namespaces)"
