package paths

import "io/fs"

// KindRefusal is why a rule whose access is named access, as the root's
// Access.String names it, cannot take the host file canon of mode m, or ""
// when it can. blockOption is the setting that names a block device, which
// a character device's rule refuses to take for one.
func KindRefusal(access, canon string, m fs.FileMode, blockOption string) string {
	switch access {
	case "ro", "rw":
		if !m.IsDir() && !m.IsRegular() && m&fs.ModeSocket == 0 {
			return "is " + FileKind(m) + "; only directories, regular files and sockets can be shown"
		}
	case "tmpfs", "overlay":
		if !m.IsDir() {
			return "is " + FileKind(m) + ", not a directory"
		}
	case "file":
		if !m.IsRegular() {
			return "is " + FileKind(m) + "; only a regular file can be copied"
		}
	case "dev":
		switch {
		case m.IsDir() && canon == "/dev":
			return "is the host's whole /dev; the sandbox's /dev is always its own: name each character device (/dev/kvm)"
		case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
			return "is a block device, which reads and writes a whole filesystem past every permission and rule: name it with " + blockOption + " if that is meant"
		case m&fs.ModeCharDevice == 0:
			return "is " + FileKind(m) + ", not a character device"
		}
	case "dev-block":
		if m&fs.ModeDevice == 0 || m&fs.ModeCharDevice != 0 {
			return "is " + FileKind(m) + ", not a block device"
		}
	}
	return ""
}
