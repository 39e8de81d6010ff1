package mounts

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrSysRefused is the kernel refusing a fresh sysfs because the /sys the
// builder sees is not fully visible (a container runtime's masks), or
// because the network namespace is not the sandbox's own.
var ErrSysRefused = errors.New("sysfs refused")

// sysRefused says why the kernel refuses a sysfs with EPERM.
const sysRefused = "the /sys in view is partly masked or over-mounted, as in a container, or the network namespace is not the sandbox's: the kernel refuses a new sysfs then"

// mountSys mounts a read-only sysfs of the caller's network namespace on
// at. The kernel lets a user namespace mount one only for a network
// namespace it owns, and only where a sysfs is fully visible already.
func (b *builder) mountSys(at string, target int) error {
	sys, err := newFS("sysfs", nil, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("mount sysfs on %s: %w (%w: %s)", at, err, ErrSysRefused, sysRefused)
		}
		return fmt.Errorf("mount sysfs on %s: %w", at, err)
	}
	defer unix.Close(sys)
	return b.attach(sys, target, at)
}

// bindHostSys binds the sysfs at source (in the old root) onto at,
// read-only, nosuid, nodev and noexec with its submounts.
func (b *builder) bindHostSys(source, at string, target int) error {
	return b.bindHostTree(source, at, target, unix.SYSFS_MAGIC, "a sysfs")
}

// TrySys creates a sysfs of the caller's network namespace and drops it,
// which is what the kernel refuses where the /sys in view is masked. The
// caller must hold CAP_SYS_ADMIN in the user namespace that owns its
// mount and network namespaces.
func TrySys() error {
	sys, err := newFS("sysfs", nil, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return fmt.Errorf("%w (%w: %s)", err, ErrSysRefused, sysRefused)
		}
		return err
	}
	return unix.Close(sys)
}
