package rawinit

import (
	"strconv"

	"golang.org/x/sys/unix"
)

var sysNames = map[uintptr]string{
	unix.SYS_READ: "read", unix.SYS_CLOSE: "close", unix.SYS_DUP3: "dup3", unix.SYS_CLOSE_RANGE: "close_range",
	unix.SYS_SETSID: "setsid", unix.SYS_PRCTL: "prctl", unix.SYS_PPOLL: "ppoll", unix.SYS_SOCKET: "socket",
	unix.SYS_IOCTL: "ioctl", unix.SYS_OPENAT2: "openat2", unix.SYS_OPENAT: "openat", unix.SYS_FSTAT: "fstat",
	unix.SYS_MOUNT_SETATTR: "mount_setattr", unix.SYS_MOVE_MOUNT: "move_mount", unix.SYS_FSOPEN: "fsopen",
	unix.SYS_FSCONFIG: "fsconfig", unix.SYS_FSMOUNT: "fsmount", unix.SYS_MOUNT: "mount", unix.SYS_OPEN_TREE: "open_tree",
	unix.SYS_FCHDIR: "fchdir", unix.SYS_PIVOT_ROOT: "pivot_root", unix.SYS_UMOUNT2: "umount2", unix.SYS_CHDIR: "chdir",
	unix.SYS_FCHMOD: "fchmod", unix.SYS_MKDIRAT: "mkdirat", unix.SYS_SYMLINKAT: "symlinkat",
	unix.SYS_SETHOSTNAME: "sethostname", unix.SYS_PRLIMIT64: "prlimit64",
	unix.SYS_LANDLOCK_CREATE_RULESET: "landlock_create_ruleset", unix.SYS_LANDLOCK_ADD_RULE: "landlock_add_rule",
	unix.SYS_LANDLOCK_RESTRICT_SELF: "landlock_restrict_self", unix.SYS_CAPGET: "capget", unix.SYS_CAPSET: "capset",
	unix.SYS_SECCOMP: "seccomp", unix.SYS_SIGNALFD4: "signalfd4", unix.SYS_PIPE2: "pipe2", unix.SYS_CLONE3: "clone3",
	unix.SYS_EXECVE: "execve", unix.SYS_CLONE: "clone", unix.SYS_GETPID: "getpid", unix.SYS_PROCESS_VM_WRITEV: "process_vm_writev",
	unix.SYS_WRITE: "write", unix.SYS_EPOLL_CREATE1: "epoll_create1",
}

func sysName(nr uintptr) string {
	if s, ok := sysNames[nr]; ok {
		return s
	}
	return "sys" + strconv.Itoa(int(nr))
}
