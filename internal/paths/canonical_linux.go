package paths

import (
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A Resolver is Canonical for many paths: it keeps the directory of the
// last path it answered open, so that paths in one directory,
// as rules often are, cost one fstatat each instead of a walk from the
// root and two more calls, where every system call is dear (a VM). Close
// releases it; the zero value is ready.
type Resolver struct {
	dir  string // the directory held open
	fd   int
	open bool
}

// fast answers for a path that has no symlink and no ".." in it, which is
// then already canonical: its directory opened with openat2 refusing every
// symlink (kept open for the next path in it), then an fstatat of its last
// name that follows no symlink. ok is false when the slow way must decide.
func (r *Resolver) fast(abs, given string) (string, fs.FileInfo, bool) {
	if strings.Contains(given, "..") {
		return "", nil, false
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	if abs == "/" {
		dir, base = "/", "."
	}
	if !r.open || r.dir != dir {
		r.Close()
		fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_CLOEXEC | unix.O_DIRECTORY,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != nil {
			return "", nil, false
		}
		r.dir, r.fd, r.open = dir, fd, true
	}
	var st unix.Stat_t
	if unix.Fstatat(r.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return "", nil, false
	}
	return abs, statInfo{name: filepath.Base(abs), st: st}, true
}

// Close releases the directory r holds open.
func (r *Resolver) Close() {
	if r.open {
		unix.Close(r.fd)
		r.open = false
	}
}

// statInfo is an fs.FileInfo made from a stat buffer; Sys returns a
// *syscall.Stat_t like os.Lstat's.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.st.Size }
func (s statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s statInfo) Sys() any           { return &s.st }

func (s statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
