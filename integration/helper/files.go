//go:build linux

package main

import (
	"encoding/binary"
	"path/filepath"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runFile runs the operations that try to give a file set-uid or set-gid
// bits or file capabilities, each through one system call. MODE is octal.
// ok is false for an op this file does not know.
func runFile(op string, args []string) (out string, ok bool, err error) {
	mode := func(i int) uint32 {
		m, _ := strconv.ParseUint(args[i], 8, 32)
		return uint32(m)
	}
	switch op {
	case "chmod": // chmod PATH MODE
		return "ok", true, unix.Chmod(args[0], mode(1))
	case "fchmod": // fchmod PATH MODE
		fd, err := unix.Open(args[0], unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		return "ok", true, unix.Fchmod(fd, mode(1))
	case "fchmodat": // fchmodat PATH MODE: relative to its directory
		dir, err := unix.Open(filepath.Dir(args[0]), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(dir)
		return "ok", true, unix.Fchmodat(dir, filepath.Base(args[0]), mode(1), 0)
	case "fchmodat2": // fchmodat2 PATH MODE: the call with flags (Linux 6.6)
		p, err := unix.BytePtrFromString(args[0])
		if err != nil {
			return "", true, err
		}
		cwd := unix.AT_FDCWD
		_, _, errno := unix.Syscall6(452, uintptr(cwd), uintptr(unsafe.Pointer(p)), uintptr(mode(1)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		return "ok", true, errnoErr(errno)
	case "create": // create PATH MODE: open(O_CREAT) with the mode
		fd, err := unix.Open(args[0], unix.O_CREAT|unix.O_WRONLY|unix.O_EXCL|unix.O_CLOEXEC, mode(1))
		if err == nil {
			unix.Close(fd)
		}
		return "ok", true, err
	case "tmpfile": // tmpfile PATH MODE: an O_TMPFILE with the mode, linked at PATH
		fd, err := unix.Open(filepath.Dir(args[0]), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, mode(1))
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		return "ok", true, unix.Linkat(fd, "", unix.AT_FDCWD, args[0], unix.AT_EMPTY_PATH)
	case "mknod-file": // mknod-file PATH MODE: a regular file made by mknod
		return "ok", true, unix.Mknod(args[0], unix.S_IFREG|mode(1), 0)
	case "openat2": // openat2 PATH MODE: create through openat2
		fd, err := unix.Openat2(unix.AT_FDCWD, args[0], &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY | unix.O_CLOEXEC, Mode: uint64(mode(1))})
		if err == nil {
			unix.Close(fd)
		}
		return "ok", true, err
	case "mkdir-mode": // mkdir-mode PATH MODE
		return "ok", true, unix.Mkdir(args[0], mode(1))
	case "setcap": // setcap PATH: file capabilities (cap_setuid+ep) in security.capability
		// struct vfs_cap_data, revision 2: magic_etc, then permitted and
		// inheritable for the two 32-bit halves.
		b := make([]byte, 20)
		binary.LittleEndian.PutUint32(b[0:], 0x02000000|1) // VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE
		binary.LittleEndian.PutUint32(b[4:], 1<<unix.CAP_SETUID)
		return "ok", true, unix.Setxattr(args[0], "security.capability", b, 0)
	}
	return "", false, nil
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
