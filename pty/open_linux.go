package pty

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Open allocates a pseudo-terminal from the ptmx device at ptmx and returns
// its master and slave, both close-on-exec, neither becoming the calling
// process's controlling terminal.
func Open(ptmx string) (master, slave *os.File, err error) {
	mfd, err := unix.Open(ptmx, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", ptmx, err)
	}
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(mfd)
		return nil, nil, fmt.Errorf("unlock pty of %s: %w", ptmx, err)
	}
	sfd, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(mfd), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC)
	if errno != 0 {
		unix.Close(mfd)
		return nil, nil, fmt.Errorf("open the slave of a pty from %s: %w", ptmx, errno)
	}
	return os.NewFile(uintptr(mfd), "ptmx"), os.NewFile(sfd, "pty slave"), nil
}

// Index is the number of a master's pty in its devpts instance: its slave
// is pts/N there.
func Index(master *os.File) (int, error) {
	n, err := unix.IoctlGetUint32(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		return 0, fmt.Errorf("TIOCGPTN: %w", err)
	}
	return int(n), nil
}

// SlavePath is the path of an open slave in this mount namespace, checked
// to name that very device (device number and devpts instance), so a rule
// made on the path reaches that terminal and no other.
func SlavePath(slave *os.File) (string, error) {
	fd := int(slave.Fd())
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return "", fmt.Errorf("name of the pty slave: %w", err)
	}
	var got, want unix.Stat_t
	if err := unix.Fstat(fd, &want); err != nil {
		return "", fmt.Errorf("fstat the pty slave: %w", err)
	}
	if err := unix.Stat(p, &got); err != nil {
		return "", fmt.Errorf("stat %s: %w", p, err)
	}
	if got.Mode&unix.S_IFMT != unix.S_IFCHR || got.Rdev != want.Rdev || got.Dev != want.Dev {
		return "", fmt.Errorf("%s is not the pty slave nsrun holds", p)
	}
	return p, nil
}
