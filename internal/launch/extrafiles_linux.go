package launch

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// PayloadFiles is the payload's descriptors when the supervisor forks it:
// its streams, then what the spec's ExtraFiles name as 3, 4, ... (a nil
// one closed), and nothing else.
func PayloadFiles(streams []uintptr, extra []int) []uintptr {
	out := append([]uintptr{}, streams...)
	for _, fd := range extra {
		out = append(out, uintptr(fd)) // -1 closes that number
	}
	return out
}

// CloseExtraFiles drops the supervisor's copies once the payload has its
// own: a pipe's end it was given then closes when the payload's does.
func CloseExtraFiles(extra []int) {
	for _, fd := range extra {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// PlaceExtraFiles puts ExtraFiles at 3, 4, ... for a payload executed in
// place of this process (the Landlock-only stage), and leaves nothing else
// open across the exec: every other descriptor is close-on-exec already.
// The status pipe, which may be among the numbers taken, is moved above
// them; the returned descriptor replaces it. Callers keep the files that
// own the old numbers reachable until the exec.
func PlaceExtraFiles(extra []int, status int) (int, error) {
	if len(extra) == 0 {
		return status, nil
	}
	high := 3 + len(extra)
	for _, fd := range append([]int{status}, extra...) {
		high = max(high, fd+1)
	}
	moved, err := unix.FcntlInt(uintptr(status), unix.F_DUPFD_CLOEXEC, high)
	if err != nil {
		return status, fmt.Errorf("ExtraFiles: move the status pipe: %w", err)
	}
	// Copies above every number first, so that placing one never
	// overwrites another that is still to be placed.
	copies := make([]int, len(extra))
	for i, fd := range extra {
		copies[i] = -1
		if fd < 0 {
			continue
		}
		if copies[i], err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, high); err != nil {
			return moved, fmt.Errorf("ExtraFiles[%d]: %w", i, err)
		}
	}
	for i, fd := range copies {
		if fd < 0 {
			// Left as it is: whatever holds that number is close-on-exec,
			// and may be the Go runtime's own (its poller), which must
			// not be closed under it.
			continue
		}
		if runtimeFD(3 + i) {
			return moved, fmt.Errorf("ExtraFiles[%d]: descriptor %d is held by the Go runtime's poller and cannot be given", i, 3+i)
		}
		if err := unix.Dup3(fd, 3+i, 0); err != nil {
			return moved, fmt.Errorf("ExtraFiles[%d] as descriptor %d: %w", i, 3+i, err)
		}
		unix.Close(fd)
	}
	return moved, nil
}

// runtimeFD says whether fd is one of the Go runtime's poller's (an epoll
// or its wake-up eventfd), which replacing would crash the runtime.
func runtimeFD(fd int) bool {
	target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	return err == nil && (target == "anon_inode:[eventpoll]" || target == "anon_inode:[eventfd]")
}
