// Package darwin is nsrun's macOS backend: a Policy as a Seatbelt profile
// for /usr/bin/sandbox-exec, and the payload run under it.
//
// Generate is pure and builds everywhere, so the profile is tested on
// Linux and printed by nsrun --print-profile on every system. Start (macOS
// only) proves the profile on /usr/bin/true, then runs the payload under
// sandbox-exec in a process group of its own; Wait says how it ended. Paths never
// appear in the profile text: each is a parameter, (param "P3"), passed
// with -D, so no path can change the profile's meaning. Rules are emitted
// from the shallowest path to the deepest, and in Seatbelt the later rule
// wins, so the deepest rule decides as on Linux.
//
// What it guarantees: writes only under the writable roots and the temp
// directories (process-exec there too, so tools built or installed in the
// workspace run); reads only under the read roots; denied paths neither
// readable nor writable, and their ancestors cannot be renamed or removed
// to move a denied path away; no network unless asked.
//
// What it cannot do: no PID, IPC, mount or network namespaces (processes
// outside stay visible and signalable when the user owns them), no seccomp,
// no resource limits; sandbox-exec is deprecated by Apple, though still
// shipped and used. An Everyone-readable file outside the read roots stays
// readable through a path Seatbelt does not see (hard links).
package darwin
