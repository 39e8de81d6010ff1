package seccomp

import (
	"runtime"
	"slices"
	"strings"
)

// syscallTable is an architecture's calls sorted by name: static data, so
// no process pays to build it at start (a map literal is built in package
// init, which the sandbox's init would run too).
type syscallTable []syscallEntry

type syscallEntry struct {
	name string
	nr   uint32
}

// lookup finds a call's number.
func (t syscallTable) lookup(name string) (uint32, bool) {
	i, ok := slices.BinarySearchFunc(t, name, func(e syscallEntry, name string) int {
		return strings.Compare(e.name, name)
	})
	if !ok {
		return 0, false
	}
	return t[i].nr, true
}

// onSomeArch reports whether any Linux architecture has the call name.
func onSomeArch(name string) bool {
	_, ok := slices.BinarySearch(anyArchSyscalls, name)
	return ok
}

// NativeName names the call numbered nr on the architecture nsrun runs
// on (for a tracer's account of a call a filter refused).
func NativeName(nr uint64) (string, bool) {
	a, ok := arches[runtime.GOARCH]
	if !ok {
		return "", false
	}
	for _, e := range a.syscalls {
		if uint64(e.nr) == nr {
			return e.name, true
		}
	}
	return "", false
}
