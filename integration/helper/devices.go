//go:build linux

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// runDevice runs the device and file-kind operations; ok is false for an
// op it does not know.
func runDevice(op string, args []string) (out string, ok bool, err error) {
	switch op {
	case "kvm": // kvm PATH: open the KVM device and ask its API version
		fd, err := unix.Open(args[0], unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		v, err := unix.IoctlRetInt(fd, 0xAE00) // KVM_GET_API_VERSION
		return fmt.Sprintf("api %d", v), true, err
	case "kind": // kind PATH: what the path is, not following a last symlink
		var st unix.Stat_t
		if err := unix.Lstat(args[0], &st); err != nil {
			return "", true, err
		}
		return map[uint32]string{unix.S_IFREG: "file", unix.S_IFDIR: "dir", unix.S_IFLNK: "symlink", unix.S_IFCHR: "char",
			unix.S_IFBLK: "block", unix.S_IFSOCK: "socket", unix.S_IFIFO: "fifo"}[st.Mode&unix.S_IFMT], true, nil
	case "readlink":
		t, err := os.Readlink(args[0])
		return t, true, err
	case "read-block": // read-block PATH: the first 4 bytes of a device
		f, err := os.Open(args[0])
		if err != nil {
			return "", true, err
		}
		defer f.Close()
		b := make([]byte, 4)
		_, err = f.Read(b)
		return string(b), true, err
	}
	return "", false, nil
}
