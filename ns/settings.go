package ns

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// Settings are the host sysctls that decide whether an unprivileged user
// may create a user namespace. An empty value means the file does not exist
// on this kernel.
type Settings struct {
	MaxUserNamespaces       string // user.max_user_namespaces
	UnprivilegedUsernsClone string // kernel.unprivileged_userns_clone (Debian, Ubuntu)
	AppArmorRestrict        string // kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10+)
	// SeccompRefuses is a seccomp filter on this process refusing clone
	// with CLONE_NEWUSER (a container runtime's profile, such as Docker's
	// default), which acts before any of the settings above.
	SeccompRefuses bool
}

// SettingFiles maps each setting to the file it is read from.
var SettingFiles = map[string]string{
	"user.max_user_namespaces":                     "/proc/sys/user/max_user_namespaces",
	"kernel.unprivileged_userns_clone":             "/proc/sys/kernel/unprivileged_userns_clone",
	"kernel.apparmor_restrict_unprivileged_userns": "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
}

// Forbidder names the setting that stops uid from creating user
// namespaces, with the value that does it, or returns "" when none does.
func Forbidder(s Settings, uid int) string {
	if s.SeccompRefuses {
		return "a seccomp filter on this process, which refuses clone with CLONE_NEWUSER (a container's profile, such as Docker's default: run the container with a profile that allows user namespaces)"
	}
	if n, err := strconv.Atoi(strings.TrimSpace(s.MaxUserNamespaces)); err == nil && n == 0 {
		return "user.max_user_namespaces=0"
	}
	if uid == 0 {
		return ""
	}
	if strings.TrimSpace(s.UnprivilegedUsernsClone) == "0" {
		return "kernel.unprivileged_userns_clone=0"
	}
	if strings.TrimSpace(s.AppArmorRestrict) == "1" {
		return "kernel.apparmor_restrict_unprivileged_userns=1 (AppArmor allows user namespaces only to profiled programs)"
	}
	return ""
}

// Explain adds the cause, where it is known, to an error from creating a
// user namespace: the forbidding setting, or a read-only /proc (the new
// namespace's uid_map and gid_map are written through it, so a container
// that mounts /proc read-only stops it there).
func Explain(err error, s Settings, uid int) error {
	if f := Forbidder(s, uid); f != "" {
		return fmt.Errorf("%w (forbidden by %s)", err, f)
	}
	if errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: /proc is mounted read-only here, and the sandbox's uid_map and gid_map are written through it; mount /proc read-write", err)
	}
	return err
}
