//go:build !race

package rawinit

// raceEnabled: see race_linux.go.
const raceEnabled = false
