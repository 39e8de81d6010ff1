package supervise

import (
	"errors"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks is the kernel's limit on symlinks followed in one lookup.
const maxLinks = 40

// procRootIno is the inode of the root of every procfs.
const procRootIno = 1

// caller is whose view of the filesystem a path is resolved in.
type caller struct {
	tid, tgid int
}

// resolve opens path, from the directory start (unused for an absolute
// path), as the caller would find it, with O_PATH: following a final symlink when follow is set, and
// taking /proc/self and /proc/thread-self to mean the caller. The returned
// descriptor is the object the caller's call would act on; whatever
// changes in the tree afterwards, it stays that object.
//
// Most paths are resolved by the kernel in one openat2 that refuses magic
// links; those (/proc/self/fd/N, /dev/stdin, /proc/PID/cwd), and every
// path where openat2 is refused, are walked a component at a time.
func resolve(root, start int, path string, follow bool, who func() (caller, error)) (int, error) {
	if path == "" {
		return -1, unix.ENOENT
	}
	if len(path) >= unix.PathMax {
		return -1, unix.ENAMETOOLONG
	}
	if strings.HasSuffix(path, "/") {
		follow = true
	}
	from := start
	if strings.HasPrefix(path, "/") {
		from = root
	}
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat2(from, path, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_NO_MAGICLINKS})
	if err == nil {
		// The kernel took /proc/self for the supervisor: nothing writable
		// lives in /proc, but the caller's own entries must be its own.
		if onProc(fd) {
			unix.Close(fd)
			return walkAs(root, start, path, follow, who)
		}
		return fd, checkTrailingSlash(fd, path)
	}
	// ENOSYS: openat2 refused (a nested sandbox's guard, kernels before
	// 5.6); the walk resolves the same.
	if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOSYS) {
		return -1, err
	}
	return walkAs(root, start, path, follow, who)
}

// walkAs is walk for the caller who names, found only now: most paths do
// not need it.
func walkAs(root, start int, path string, follow bool, who func() (caller, error)) (int, error) {
	c, err := who()
	if err != nil {
		return -1, err
	}
	return walk(root, start, path, follow, c)
}

// walk resolves path a component at a time, following ordinary symlinks
// itself and magic links of the caller's own /proc entries through the
// kernel.
func walk(root, start int, path string, follow bool, who caller) (int, error) {
	from := start
	if strings.HasPrefix(path, "/") {
		from = root
	}
	cur, err := dupPath(from)
	if err != nil {
		return -1, err
	}
	fail := func(err error) (int, error) {
		unix.Close(cur)
		return -1, err
	}
	comps := split(path)
	links := 0
	ownProc := false // cur is under /proc/<the caller>
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		last := len(comps) == 0
		if c == "." || c == "" {
			continue
		}
		if isProcRoot(cur) {
			switch {
			case c == "self":
				comps = append([]string{strconv.Itoa(who.tgid)}, comps...)
				continue
			case c == "thread-self":
				comps = append([]string{strconv.Itoa(who.tgid), "task", strconv.Itoa(who.tid)}, comps...)
				continue
			case c != "..":
				pid, err := strconv.Atoi(c)
				ownProc = err == nil && (pid == who.tgid || pid == who.tid)
			}
		}
		next, err := unix.Openat(cur, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail(err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil {
			unix.Close(next)
			return fail(err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK && (!last || follow) {
			links++
			if links > maxLinks {
				unix.Close(next)
				return fail(unix.ELOOP)
			}
			if onProc(cur) {
				// A magic link (fd/N, cwd, root, exe) or a procfs link:
				// the kernel follows it, for the caller's own entries only
				// (another process's root or cwd may be in another mount
				// namespace, where paths mean something else).
				unix.Close(next)
				if !ownProc {
					return fail(unix.EACCES)
				}
				next, err = unix.Openat(cur, c, unix.O_PATH|unix.O_CLOEXEC, 0)
				if err != nil {
					return fail(err)
				}
			} else {
				target, err := readlinkFd(next)
				unix.Close(next)
				if err != nil {
					return fail(err)
				}
				if strings.HasPrefix(target, "/") {
					unix.Close(cur)
					if cur, err = dupPath(root); err != nil {
						return -1, err
					}
					ownProc = false
				}
				comps = append(split(target), comps...)
				continue
			}
		} else if !last && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			unix.Close(next)
			return fail(unix.ENOTDIR)
		}
		unix.Close(cur)
		cur = next
	}
	return cur, checkTrailingSlash(cur, path)
}

// checkTrailingSlash refuses a final object that is not a directory when
// the path ends in a slash, as the kernel does.
func checkTrailingSlash(fd int, path string) error {
	if !strings.HasSuffix(path, "/") {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		return unix.ENOTDIR
	}
	return nil
}

func split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

func dupPath(fd int) (int, error) {
	return unix.Openat(fd, ".", unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
}

func onProc(fd int) bool {
	var fs unix.Statfs_t
	return unix.Fstatfs(fd, &fs) == nil && fs.Type == unix.PROC_SUPER_MAGIC
}

func isProcRoot(fd int) bool {
	var st unix.Stat_t
	return onProc(fd) && unix.Fstat(fd, &st) == nil && st.Ino == procRootIno
}

func readlinkFd(fd int) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(fd, "", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// location is where the object fd is now: its canonical path, or "" when
// it has no name on any filesystem (an unlinked file, a memfd, a pipe).
func location(fd int) (string, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", err
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil {
		return "", err
	}
	p := string(buf[:n])
	if st.Nlink == 0 || !strings.HasPrefix(p, "/") {
		return "", nil
	}
	return p, nil
}
