package ns

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// CloneFlags are the namespaces of a sandbox; hostNet keeps the host's
// network namespace.
func CloneFlags(hostNet bool) uintptr {
	f := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
		syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP)
	if !hostNet {
		f |= syscall.CLONE_NEWNET
	}
	return f
}

// Maps are the single-line uid and gid maps that show hostUID as uid and
// hostGID as gid inside.
func Maps(uid, hostUID, gid, hostGID int) (uids, gids []syscall.SysProcIDMap) {
	return []syscall.SysProcIDMap{{ContainerID: uid, HostID: hostUID, Size: 1}},
		[]syscall.SysProcIDMap{{ContainerID: gid, HostID: hostGID, Size: 1}}
}

// SetupCaps are the capabilities the sandbox's init keeps across its execve
// (as ambient capabilities) to build the sandbox: mounts, pivot_root and
// hostname (SYS_ADMIN), the loopback interface (NET_ADMIN), and dropping
// the bounding set and setting securebits (SETPCAP).
var SetupCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}

// OverlayCaps are SetupCaps and DAC_OVERRIDE, for an init that mounts an
// overlay: overlayfs does its own work on the upper layer with the
// credentials of whoever mounted it, and its work directory has mode 0.
// They are the init's, in the sandbox's user namespace, and dropped with
// the rest before the payload starts; the overlay's copy acts only on its
// layers, after the payload's own credentials have been checked on the
// overlay's files.
var OverlayCaps = append(append([]uintptr{}, SetupCaps...), unix.CAP_DAC_OVERRIDE)
