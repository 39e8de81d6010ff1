//go:build !race

package nsrun

const raceEnabled = false
