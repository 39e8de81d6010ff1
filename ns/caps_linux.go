package ns

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Securebits that keep uid 0 from meaning capabilities, locked so the
// payload cannot undo them.
const noRootBits = 1<<0 | 1<<1 | // SECBIT_NOROOT, _LOCKED
	1<<2 | 1<<3 | // SECBIT_NO_SETUID_FIXUP, _LOCKED
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED (KEEP_CAPS itself off)
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE, _LOCKED

// DropPrivileges sets NO_NEW_PRIVS and empties every capability set of the
// calling thread, bounding and ambient included. The caller must have
// locked the goroutine to its thread and fork the payload from it.
//
// Without CAP_SETPCAP (an unprivileged caller outside a user namespace)
// the bounding set and securebits cannot be changed; there is nothing in
// the other sets either then, and NO_NEW_PRIVS keeps execve from adding
// any.
func DropPrivileges() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		if err := dropBounding(); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_CAP_AMBIENT_CLEAR_ALL: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset to empty: %w", err)
	}
	return nil
}

// dropBounding empties the bounding set and locks the securebits that
// would let uid 0 regain capabilities at execve.
func dropBounding() error {
	last, err := lastCap()
	if err != nil {
		return err
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("prctl PR_CAPBSET_DROP %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, noRootBits, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_SECUREBITS: %w", err)
	}
	return nil
}

func lastCap() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, fmt.Errorf("read cap_last_cap: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("parse /proc/sys/kernel/cap_last_cap %q: %w", b, err)
	}
	return n, nil
}

// KeepCapabilities sets NO_NEW_PRIVS and leaves the calling thread the
// capabilities of keep (bit N is capability N) and no other in its
// permitted and effective sets, those of bounding in its bounding set;
// with ambient, those of keep in its
// inheritable and ambient sets too, so that they survive execve whatever
// the payload's uid (without, only uid 0 has them after execve, and the
// inheritable set is emptied). Only capabilities the thread holds can be
// kept; the others of keep are left out. It is bubblewrap's treatment of
// a root caller (or of --cap-add) and is meant for a thread in a user
// namespace of the sandbox's own, whose capabilities reach nothing
// outside it.
func KeepCapabilities(keep, bounding uint64, ambient bool) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", err)
	}
	last, err := lastCap()
	if err != nil {
		return err
	}
	for c := 0; c <= last && c < 64; c++ {
		if bounding&(1<<c) != 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("prctl PR_CAPBSET_DROP %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_CAP_AMBIENT_CLEAR_ALL: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for i := range data {
		m := uint32(keep>>(32*i)) & data[i].Permitted
		data[i] = unix.CapUserData{Effective: m, Permitted: m}
		if ambient {
			data[i].Inheritable = m
		}
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset to %#x: %w", keep, err)
	}
	held := uint64(data[0].Inheritable) | uint64(data[1].Inheritable)<<32
	for c := 0; c <= last && c < 64; c++ {
		if held&(1<<c) == 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_RAISE, uintptr(c), 0, 0); err != nil {
			return fmt.Errorf("prctl PR_CAP_AMBIENT_RAISE %d: %w", c, err)
		}
	}
	return nil
}
