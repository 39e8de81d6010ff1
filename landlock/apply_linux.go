package landlock

import (
	"errors"
	"fmt"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ABI returns the Landlock ABI version the running kernel offers and the
// errata it has fixed. It fails with ENOSYS when the kernel lacks Landlock
// and EOPNOTSUPP when Landlock is built in but not enabled at boot.
func ABI() (version int, errata uint64, err error) {
	version, err = ll.LandlockGetABIVersion()
	if err != nil {
		return 0, 0, fmt.Errorf("landlock_create_ruleset version: %w", err)
	}
	e, err := ll.LandlockGetErrata()
	if err != nil {
		// Kernels before the errata query have fixed none.
		return version, 0, nil
	}
	return version, uint64(e), nil
}

// Apply enforces rs on the calling thread, which the caller has locked and
// from which it starts the payload; NO_NEW_PRIVS is set first, as Landlock
// requires without CAP_SYS_ADMIN and as nsrun wants also with it.
func Apply(rs Ruleset) error {
	if rs.Handled.empty() {
		return nil
	}
	fd, err := build(rs)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return restrictSelf(fd)
}

// build makes the ruleset rs in the kernel and returns its descriptor.
// Rule paths are opened without following any symlink on the way, and a
// rule whose path names another file than the one the caller checked
// (PathRule.ID) is an error: a rule must never land on a directory
// swapped in since.
func build(rs Ruleset) (int, error) {
	attr := ll.RulesetAttr{
		HandledAccessFS:  uint64(rs.Handled.FS),
		HandledAccessNet: uint64(rs.Handled.Net),
		Scoped:           uint64(rs.Handled.Scope),
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, fmt.Errorf("landlock_create_ruleset %s / %s / %s: %w", rs.Handled.FS, rs.Handled.Net, rs.Handled.Scope, err)
	}
	fail := func(err error) (int, error) {
		unix.Close(fd)
		return -1, err
	}
	for _, r := range rs.Paths {
		if err := addPath(fd, r, rs.Handled.FS); err != nil {
			return fail(err)
		}
	}
	for _, r := range rs.Ports {
		if r.Access&rs.Handled.Net == 0 {
			continue
		}
		err := ll.LandlockAddNetPortRule(fd, &ll.NetPortAttr{AllowedAccess: uint64(r.Access & rs.Handled.Net), Port: uint64(r.Port)}, 0)
		if err != nil {
			return fail(fmt.Errorf("landlock_add_rule port %d %s: %w", r.Port, r.Access, err))
		}
	}
	return fd, nil
}

// restrictSelf enforces the ruleset fd on the calling thread, setting
// NO_NEW_PRIVS first.
func restrictSelf(fd int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_NO_NEW_PRIVS: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// changed is the error for a rule path that no longer names the file the
// rules were made for: the tree changed between planning and enforcing.
func changed(path, why string) error {
	return fmt.Errorf("landlock rule on %s: the path changed during start-up (%s); nothing ran", path, why)
}

// openNoSymlinks opens the canonical path, O_PATH, failing with ELOOP if
// a symlink is anywhere on the way. Where openat2 is refused (ENOSYS: so
// do kernels before 5.6, and nsrun's own guard, in a nested sandbox), it
// walks the path one name at a time with O_NOFOLLOW, which for a path
// without "." or ".." resolves the same.
func openNoSymlinks(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	return walkNoSymlinks(path)
}

// walkNoSymlinks is openNoSymlinks without openat2.
func walkNoSymlinks(path string) (int, error) {
	if !strings.HasPrefix(path, "/") {
		return -1, unix.EINVAL
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, err
	}
	names := strings.Split(strings.Trim(path, "/"), "/")
	for i, name := range names {
		if name == "" && len(names) == 1 {
			break // "/"
		}
		if name == "" || name == "." || name == ".." {
			unix.Close(fd)
			return -1, unix.EINVAL
		}
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
		if i == len(names)-1 {
			break // a final symlink is returned, as openat2 does
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(fd)
			return -1, unix.ELOOP
		}
	}
	return fd, nil
}

// addPath adds one rule. The path is opened with openat2
// RESOLVE_NO_SYMLINKS: rule paths are canonical, so a symlink anywhere on
// the way means the tree changed since they were made.
func addPath(ruleset int, r PathRule, handled FS) error {
	access := r.Access & handled
	if !r.Dir {
		access &= FileRights
	}
	if access == 0 {
		return nil
	}
	fd, err := openNoSymlinks(r.Path)
	switch {
	case errors.Is(err, unix.ENOENT):
		// Gone since the rules were made: nothing to grant.
		return nil
	case errors.Is(err, unix.ELOOP):
		return changed(r.Path, "a symlink is now on the way")
	case err != nil:
		return fmt.Errorf("landlock rule on %s: open: %w", r.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule on %s: fstat: %w", r.Path, err)
	}
	if r.ID != (Identity{}) && (st.Dev != r.ID.Dev || st.Ino != r.ID.Ino) {
		return changed(r.Path, "it is another file now")
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= FileRights
	}
	if err := ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(access)}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule %s %s: %w", r.Path, access, err)
	}
	return nil
}
