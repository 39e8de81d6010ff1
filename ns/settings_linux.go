package ns

import (
	"os"
	"strings"
)

// ReadSettings reads the host's user namespace settings; missing files
// leave their field empty.
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
	}
}
