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
