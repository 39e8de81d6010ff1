package supervise

import (
	"encoding/binary"
	"errors"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/procfs"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/seccomp"
)

// openWrite are the open flags that write.
const openWrite = unix.O_WRONLY | unix.O_RDWR

// entry is a directory entry a call names: the directory (an O_PATH
// descriptor of the supervisor's, and its path) and the name in it.
type entry struct {
	dir     int
	dirPath string
	name    string
}

func (e entry) path() string { return path.Join(e.dirPath, e.name) }

// entryAt opens the directory of the entry path names, from dirfd, as the
// caller sees it. ok is false where the kernel is better left to decide
// (".", "..", a directory that has no name any more): Landlock then does.
func (t *target) entryAt(dirfd int32, at uint64) (e entry, ok bool, err error) {
	p, err := readString(t.tid, at, unix.PathMax-1)
	if err != nil {
		return entry{}, false, err
	}
	p = strings.TrimRight(p, "/")
	if p == "" {
		return entry{}, false, nil // "" or "/": nothing to create or remove
	}
	dir, name := path.Split(p)
	if name == "." || name == ".." {
		return entry{}, false, nil
	}
	start := -1
	if !strings.HasPrefix(p, "/") {
		if start, err = t.dir(dirfd); err != nil {
			return entry{}, false, err
		}
	}
	fd := start
	if dir != "" {
		if fd, err = resolve(t.s.root, start, dir, true, t.who); err != nil {
			return entry{}, false, err
		}
		t.keep(fd)
	}
	loc, err := location(fd)
	if err != nil || loc == "" {
		return entry{}, false, err
	}
	return entry{dir: fd, dirPath: loc, name: name}, true, nil
}

// landlockGives reports whether the payload's Landlock rules give rights
// on the directory dir: then the kernel does the call, and checks it.
func (s *Supervisor) landlockGives(dir string, rights landlock.FS) bool {
	return landlock.Allowed(s.cfg.Landlock, dir)&rights == rights
}

// mayChange reports whether the policy lets the payload create, remove or
// replace the entry at p: p is writable, and neither a protected path nor
// a directory holding one (removing or renaming it would take the
// protection along).
func (s *Supervisor) mayChange(p string) bool {
	if !s.cfg.Policy.Writable(p) {
		return false
	}
	for _, q := range s.cfg.Policy.Protected {
		if within(q, p) {
			return false
		}
	}
	return true
}

// umask is the caller's file mode creation mask.
func (t *target) umask() uint32 {
	if st, err := procfs.ReadStatus(t.tid); err == nil && len(st["Umask"]) > 0 {
		if m, err := strconv.ParseUint(st["Umask"][0], 8, 32); err == nil {
			return uint32(m)
		}
	}
	return 0o022
}

// entryCall handles the calls that create, remove, rename or open for
// writing an entry. Where the payload's Landlock rules give what the call
// needs, where the policy does not allow it, or where its arguments cannot
// be looked at, the kernel decides (Landlock then refuses what it must,
// and the kernel gives its own errors): letting the call continue is
// safe, since Landlock checks it again. Otherwise the supervisor makes the change
// itself, on the directory it opened and the one name in it, so nothing
// the payload changes meanwhile can move it elsewhere.
func (s *Supervisor) entryCall(t *target, c call, n seccomp.Notification) (int64, error) {
	a := n.Args
	switch c.op {
	case opOpen:
		flags := uint64(unix.O_CREAT | unix.O_WRONLY | unix.O_TRUNC) // creat
		mode := a[c.b]
		if c.flags != none {
			flags = a[c.flags]
		}
		if c.how {
			if n.Args[3] < 24 {
				return 0, errContinue // the kernel refuses it
			}
			how, err := readMem(t.tid, a[c.b], 24)
			if err != nil || binary.LittleEndian.Uint64(how[16:]) != 0 {
				return 0, errContinue // RESOLVE_* flags: the kernel resolves
			}
			flags, mode = binary.LittleEndian.Uint64(how), binary.LittleEndian.Uint64(how[8:])
		}
		return s.open(t, c, flags, uint32(mode))
	case opMkdir, opMknod, opSymlink:
		e, ok, err := t.entryAt(dirfdArg(c, a), a[c.path])
		if err != nil || !ok {
			return 0, errContinue
		}
		need := map[op]landlock.FS{opMkdir: landlock.MakeDir, opSymlink: landlock.MakeSym}[c.op]
		mode := uint32(0)
		if c.a != none {
			mode = uint32(a[c.a]) &^ t.umask()
		}
		if c.op == opMknod {
			if need = mknodRight(mode); need == 0 {
				return 0, errContinue // devices: the kernel refuses them
			}
		}
		if s.landlockGives(e.dirPath, need) || !s.mayChange(e.path()) {
			return 0, errContinue
		}
		switch c.op {
		case opMkdir:
			return 0, unix.Mkdirat(e.dir, e.name, mode)
		case opMknod:
			return 0, unix.Mknodat(e.dir, e.name, mode, 0)
		}
		target, err := readString(t.tid, a[c.a2], unix.PathMax-1)
		if err != nil {
			return 0, err
		}
		return 0, unix.Symlinkat(target, e.dir, e.name)
	case opUnlink:
		e, ok, err := t.entryAt(dirfdArg(c, a), a[c.path])
		if err != nil || !ok {
			return 0, errContinue
		}
		flags := 0
		if c.flags != none {
			flags = int(a[c.flags])
		} else if c.rmdir {
			flags = unix.AT_REMOVEDIR
		}
		need := landlock.RemoveFile
		if flags&unix.AT_REMOVEDIR != 0 {
			need = landlock.RemoveDir
		}
		if s.landlockGives(e.dirPath, need) || !s.mayChange(e.path()) {
			return 0, errContinue
		}
		return 0, unix.Unlinkat(e.dir, e.name, flags)
	case opRename, opLink:
		return 0, s.twoEntries(t, c, n)
	case opTruncate:
		fd, err := t.target(c)
		if err != nil {
			return 0, errContinue
		}
		loc, err := location(fd)
		if err != nil {
			return 0, errContinue
		}
		if loc == "" || s.landlockGives(loc, landlock.Truncate) || !s.mayChange(loc) {
			return 0, errContinue
		}
		return 0, unix.Truncate("/proc/self/fd/"+strconv.Itoa(fd), int64(a[c.a]))
	}
	return 0, unix.EPERM
}

// open handles an open that creates, truncates or writes.
func (s *Supervisor) open(t *target, c call, flags uint64, mode uint32) (int64, error) {
	// O_PATH ignores the other flags; O_TMPFILE makes no entry.
	if flags&(unix.O_CREAT|unix.O_TRUNC|openWrite) == 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE || flags&unix.O_PATH != 0 {
		return 0, errContinue
	}
	dirfd := int32(atFdcwd)
	if c.dirfd != none {
		dirfd = int32(t.n.Args[c.dirfd])
	}
	if flags&unix.O_CREAT != 0 {
		e, ok, err := t.entryAt(dirfd, t.n.Args[c.path])
		if err != nil || !ok {
			return 0, errContinue
		}
		if s.landlockGives(e.dirPath, landlock.MakeReg) || !s.mayChange(e.path()) {
			return 0, errContinue
		}
		// Created here only if it does not exist, never through a
		// symlink; an entry that exists is opened as the payload's open
		// would, below.
		fd, err := unix.Openat(e.dir, e.name, int(flags)&^unix.O_CLOEXEC|unix.O_EXCL|unix.O_NOFOLLOW, mode&^t.umask())
		if err == nil {
			return s.installFd(t, fd, flags)
		}
		if !errors.Is(err, unix.EEXIST) || flags&unix.O_EXCL != 0 {
			return 0, err
		}
	}
	// An entry that exists: the file the path leads to.
	p, err := readString(t.tid, t.n.Args[c.path], unix.PathMax-1)
	if err != nil {
		return 0, errContinue
	}
	start := -1
	if !strings.HasPrefix(p, "/") {
		if start, err = t.dir(dirfd); err != nil {
			return 0, errContinue
		}
	}
	obj, err := resolve(s.root, start, p, flags&unix.O_NOFOLLOW == 0, t.who)
	if err != nil {
		return 0, errContinue
	}
	t.keep(obj)
	var st unix.Stat_t
	if err := unix.Fstat(obj, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		// A FIFO or a device could block the open, and so the supervisor:
		// the kernel opens those.
		return 0, errContinue
	}
	loc, err := location(obj)
	if err != nil {
		return 0, errContinue
	}
	need := landlock.FS(0)
	if flags&openWrite != 0 {
		need |= landlock.WriteFile
	}
	if flags&unix.O_TRUNC != 0 {
		need |= landlock.Truncate
	}
	if loc == "" || s.landlockGives(loc, need) || !s.mayChange(loc) {
		return 0, errContinue
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(obj), int(flags)&^(unix.O_CLOEXEC|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW), 0)
	if err != nil {
		return 0, err
	}
	return s.installFd(t, fd, flags)
}

// installFd gives fd to the caller as what its open returns.
func (s *Supervisor) installFd(t *target, fd int, flags uint64) (int64, error) {
	defer unix.Close(fd)
	if err := seccomp.RespondFd(s.cfg.Listener, t.n.ID, fd, flags&unix.O_CLOEXEC != 0); err != nil {
		return 0, err
	}
	return 0, errAnswered
}

// twoEntries handles rename and link, which name two entries.
func (s *Supervisor) twoEntries(t *target, c call, n seccomp.Notification) error {
	a := n.Args
	oldDir, newDir := int32(atFdcwd), int32(atFdcwd)
	if c.dirfd != none {
		oldDir, newDir = int32(a[c.dirfd]), int32(a[c.dirfd2])
	}
	dst, ok, err := t.entryAt(newDir, a[c.path2])
	if err != nil || !ok {
		return errContinue
	}
	flags := 0
	if c.flags != none {
		flags = int(a[c.flags])
	}
	if c.op == opLink {
		follow := flags&unix.AT_SYMLINK_FOLLOW != 0
		p, err := readString(t.tid, a[c.path], unix.PathMax-1)
		if err != nil {
			return err
		}
		var src int
		if p == "" && flags&unix.AT_EMPTY_PATH != 0 {
			src, err = t.dir(oldDir)
		} else {
			start := -1
			if !strings.HasPrefix(p, "/") {
				if start, err = t.dir(oldDir); err != nil {
					return err
				}
			}
			if src, err = resolve(s.root, start, p, follow, t.who); err == nil {
				t.keep(src)
			}
		}
		if err != nil {
			return errContinue
		}
		// A second name for a file that is not the payload's to change
		// would let it be changed there.
		loc, err := location(src)
		if err != nil {
			return err
		}
		if s.landlockGives(dst.dirPath, landlock.MakeReg|landlock.Refer) || loc == "" || !s.mayChange(loc) || !s.mayChange(dst.path()) {
			return errContinue
		}
		return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(src), dst.dir, dst.name, unix.AT_SYMLINK_FOLLOW)
	}
	src, ok, err := t.entryAt(oldDir, a[c.path])
	if err != nil || !ok {
		return errContinue
	}
	if s.landlockGives(src.dirPath, landlock.Bind) && s.landlockGives(dst.dirPath, landlock.Bind) ||
		!s.mayChange(src.path()) || !s.mayChange(dst.path()) {
		return errContinue
	}
	return unix.Renameat2(src.dir, src.name, dst.dir, dst.name, uint(flags))
}

// mknodRight is the right mknod of mode needs; 0 for devices.
func mknodRight(mode uint32) landlock.FS {
	switch mode & unix.S_IFMT {
	case 0, unix.S_IFREG:
		return landlock.MakeReg
	case unix.S_IFIFO:
		return landlock.MakeFifo
	case unix.S_IFSOCK:
		return landlock.MakeSock
	}
	return 0
}

func dirfdArg(c call, a [6]uint64) int32 {
	if c.dirfd == none {
		return atFdcwd
	}
	return int32(a[c.dirfd])
}
