package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// osMaker makes on the host what bubblewrap makes through a writable bind
// of base. Every change is made through a descriptor of its parent
// directory, reached from base with no symlink followed (openat2,
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, Linux 5.6): makeOnHost refuses a
// symlink on the way when it looks, but another sandbox that may write
// under base could swap one in after that look, and a change by path
// would then follow it out of base (a chmod of any file of the caller's).
// Modes are set after the making, so the umask does not change them.
var osMaker = &hostMaker{
	mkdir: func(base, p string, mode fs.FileMode) error {
		return inParent(base, p, "mkdir", func(dir int, name string) error {
			if err := unix.Mkdirat(dir, name, 0o700); err != nil {
				return err
			}
			return chmodAt(dir, name, unix.O_DIRECTORY, mode)
		})
	},
	mkfile: func(base, p string, mode fs.FileMode) error {
		return inParent(base, p, "create", func(dir int, name string) error {
			fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Fchmod(fd, uint32(mode.Perm()))
		})
	},
	symlink: func(base, target, p string) error {
		return inParent(base, p, "symlink", func(dir int, name string) error {
			return unix.Symlinkat(target, dir, name)
		})
	},
	readlink: func(base, p string) (string, error) {
		var target string
		err := inParent(base, p, "readlink", func(dir int, name string) error {
			buf := make([]byte, unix.PathMax)
			n, err := unix.Readlinkat(dir, name, buf)
			target = string(buf[:max(n, 0)])
			return err
		})
		return target, err
	},
	chmod: func(base, p string, mode fs.FileMode) error {
		return inParent(base, p, "chmod", func(dir int, name string) error {
			return chmodAt(dir, name, 0, mode)
		})
	},
}

// inParent calls do with a descriptor of p's parent directory, opened
// beneath base without following symlinks, and p's last name.
func inParent(base, p, op string, do func(dir int, name string) error) error {
	rel, err := filepath.Rel(base, filepath.Dir(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("not under %s", base)}
	}
	root, err := unix.Open(base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: op, Path: base, Err: err}
	}
	defer unix.Close(root)
	dir, err := unix.Openat2(root, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return &fs.PathError{Op: op, Path: filepath.Dir(p), Err: err}
	}
	defer unix.Close(dir)
	if err := do(dir, filepath.Base(p)); err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	return nil
}

// chmodAt sets the mode of name in dir, never of what a symlink there
// names: the file is held by an O_PATH descriptor, checked, and changed
// through its /proc/self/fd link, which names that very file.
func chmodAt(dir int, name string, flags int, mode fs.FileMode) error {
	fd, err := unix.Openat(dir, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), uint32(mode))
}
