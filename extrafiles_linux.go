package nsrun

import (
	"os"
	"strconv"
)

// fileName is how the report names a passed descriptor: what the kernel
// says it is ("/path", "pipe:[123]", "socket:[456]").
func fileName(f *os.File) string {
	if name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
		return name
	}
	return f.Name()
}

// extraFilePlaces appends the Cmd's ExtraFiles to the descriptors the init
// (or the Landlock-only stage) is started with, from first on (the places
// before it left empty), and returns where each lands, -1 for a nil one.
func extraFilePlaces(files []uintptr, extra []*os.File, first int) ([]uintptr, []int) {
	if len(extra) == 0 {
		return files, nil
	}
	for len(files) < first {
		files = append(files, ^uintptr(0))
	}
	at := make([]int, len(extra))
	for i, f := range extra {
		if f == nil {
			at[i] = -1
			continue
		}
		at[i] = len(files)
		files = append(files, f.Fd())
	}
	return files, at
}

func countNil(files []*os.File) int {
	n := 0
	for _, f := range files {
		if f == nil {
			n++
		}
	}
	return n
}
