package nsrun

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
)

// checkExtraFiles refuses ExtraFiles that cannot be passed: a closed file,
// or any at all on Windows.
func (c *Cmd) checkExtraFiles() error {
	if len(c.ExtraFiles) > 0 && runtime.GOOS == "windows" {
		return &SetupError{Code: ExitSetup, Msg: "ExtraFiles: the Windows backend passes no descriptors but the standard streams"}
	}
	for i, f := range c.ExtraFiles {
		if f != nil && f.Fd() == ^uintptr(0) {
			return &SetupError{Code: ExitSetup, Msg: fmt.Sprintf("ExtraFiles[%d] (descriptor %d inside): %s is closed", i, 3+i, f.Name())}
		}
		if f == nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			// A directory's descriptor is a way around the mounts: paths
			// opened from it are the host's, not the sandbox's view.
			c.warnf("ExtraFiles[%d] (descriptor %d inside) is the directory %s: through it the payload opens what is under it, and above it with .., as far as Landlock and the files' modes allow, past the mounts that make paths read-only or hidden", i, 3+i, fileName(f))
		}
	}
	return nil
}

// describeExtraFiles is what the report says of ExtraFiles: each
// descriptor the payload got and what it is.
func describeExtraFiles(files []*os.File) []ExtraFileReport {
	var out []ExtraFileReport
	for i, f := range files {
		if f != nil {
			out = append(out, ExtraFileReport{FD: 3 + i, Name: fileName(f)})
		}
	}
	return out
}

// fileName is how the report names a passed descriptor: on Linux what the
// kernel says it is ("/path", "pipe:[123]", "socket:[456]"), elsewhere the
// name it was opened with.
func fileName(f *os.File) string {
	if runtime.GOOS == "linux" {
		if name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
			return name
		}
	}
	return f.Name()
}
