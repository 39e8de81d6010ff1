package ptrace

import (
	"testing"

	"golang.org/x/sys/unix"
)

// observed is what a filter made of Calls stops at: a stop elsewhere is a
// filter of the payload's.
func TestObserved(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Syscall
		want bool
	}{
		{"openat", Syscall{NR: unix.SYS_OPENAT}, true},
		{"connect", Syscall{NR: unix.SYS_CONNECT}, true},
		{"sendto with an address", Syscall{NR: unix.SYS_SENDTO, Args: [6]uint64{3, 1, 1, 0, 0x1000, 16}}, true},
		{"sendto without one", Syscall{NR: unix.SYS_SENDTO, Args: [6]uint64{3, 1, 1}}, false},
		{"getpid", Syscall{NR: unix.SYS_GETPID}, false},
		{"keyctl", Syscall{NR: unix.SYS_KEYCTL}, false},
	} {
		if got := observed(tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
