// Package pty is the terminal mechanism of a sandbox: allocating a
// pseudo-terminal, reading and changing a terminal's modes and size,
// passing a descriptor over a unix socket, and relaying bytes between a
// caller's terminal and a pty's master side.
//
// Guarantees: Open returns a master and its slave from the devpts instance
// behind the ptmx path given (the slave is reached through the master with
// TIOCGPTPEER, never by a path another process could replace); Raw gives
// the modes cfmakeraw(3) gives; the relay never reads a terminal while
// Gate says no (so a background job does not take the keystrokes meant for
// the foreground), never blocks in a read that could outlast a change of
// foreground (it reads only what FIONREAD says is there), and never sets
// O_NONBLOCK on a descriptor it does not own (the caller's terminal is
// shared with its shell). Queries recognizes the queries a program writes
// that a terminal answers, and the answers, across any split of the
// streams into reads; Absorb reads a terminal only while answers are
// awaited, one byte at a time, never past the last answer, and stops at
// the first byte no awaited answer has.
//
// Kernel minimums: TIOCGPTPEER (4.13).
//
// What it cannot do: restore a terminal's modes after the process is
// killed by SIGKILL; know whether a program reads its slave (so it cannot
// stop a background job only when it reads: the caller arranges that with
// the pty's own job control); put back a byte it read from a terminal
// where the kernel refuses TIOCSTI (GiveBack then reports
// ErrCannotGiveBack); know a query of a form it does not list.
package pty
