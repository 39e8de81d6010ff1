//go:build race

package nsrun

// raceEnabled says the race detector is on: the test binary, which is also
// the sandbox's init in these tests, is then several times larger and slower.
const raceEnabled = true
