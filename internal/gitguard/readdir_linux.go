package gitguard

import (
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// reader reads directory listings with getdents into one buffer: the walk
// at each launch reads every directory of the workspace, so no entry is
// stat'ed unless the file system does not report its type, and nothing
// is allocated but the names of subdirectories.
type reader struct{ buf []byte }

func newReader() *reader { return &reader{buf: make([]byte, 32<<10)} }

// read reads the listing of dir, which must be a directory itself, not a
// symlink to one.
func (r *reader) read(dir string) (*listing, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	l := &listing{}
	for {
		n, err := unix.Getdents(fd, r.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "getdents64", Path: dir, Err: err}
		}
		if n <= 0 {
			return l, nil
		}
		if err := r.parse(fd, r.buf[:n], l); err != nil {
			return nil, &fs.PathError{Op: "getdents64", Path: dir, Err: err}
		}
	}
}

// parse adds the linux_dirent64 records in b to l: inode (8 bytes), offset
// (8), record length (2), type (1), then the name, NUL-terminated.
func (r *reader) parse(fd int, b []byte, l *listing) error {
	for len(b) > 0 {
		if len(b) < 19 {
			return unix.EINVAL
		}
		reclen := int(binary.NativeEndian.Uint16(b[16:]))
		if reclen < 19 || reclen > len(b) {
			return unix.EINVAL
		}
		typ, name := b[18], b[19:reclen]
		b = b[reclen:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		var mode fs.FileMode
		switch typ {
		case unix.DT_REG:
		case unix.DT_DIR:
			mode = fs.ModeDir
		case unix.DT_LNK:
			mode = fs.ModeSymlink
		case unix.DT_UNKNOWN:
			var st unix.Stat_t
			if err := unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue // gone since
			}
			mode = statType(st.Mode)
		default:
			mode = fs.ModeIrregular
		}
		l.add(string(name), mode)
	}
	return nil
}

func statType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
