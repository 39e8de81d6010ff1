package ns

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ReadSettings reads the host's user namespace settings; missing files
// leave their field empty. It also asks the kernel whether a seccomp
// filter on this process refuses user namespaces.
func ReadSettings() Settings {
	read := func(name string) string {
		b, err := os.ReadFile(SettingFiles[name])
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	return Settings{
		MaxUserNamespaces:       read("user.max_user_namespaces"),
		UnprivilegedUsernsClone: read("kernel.unprivileged_userns_clone"),
		AppArmorRestrict:        read("kernel.apparmor_restrict_unprivileged_userns"),
		SeccompRefuses:          seccompRefusesUserns(),
	}
}

// seccompRefusesUserns reports whether a seccomp filter on this process
// refuses clone with CLONE_NEWUSER, as Docker's default profile does. It
// asks for CLONE_NEWUSER|CLONE_FS, which the kernel itself refuses with
// EINVAL before creating anything; EPERM means a filter answered first.
func seccompRefusesUserns() bool {
	_, _, errno := unix.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|unix.CLONE_FS, 0, 0, 0, 0, 0)
	return errno == unix.EPERM
}
