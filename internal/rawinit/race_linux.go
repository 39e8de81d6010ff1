//go:build race

package rawinit

// raceEnabled: the race detector's runtime keeps per-thread state that a
// clone sharing this address space would use along with the thread it was
// cloned from (the payload then faults before its exec), so the init gets
// a copy of the address space under it.
const raceEnabled = true
