package supervise

import "sync"

// op is what a handed-over call does.
type op int

const (
	opConnect op = iota + 1
	opListen
	opChmod
	opChown
	opUtimes
	opSetxattr
	opRemovexattr
	opIoctl
	opPid      // the pid is argument 0
	opPidWhich // setpriority and ioprio_set: which in argument 0, who in 1
	opOpen
	opMkdir
	opMknod
	opSymlink
	opUnlink
	opRename
	opLink
	opTruncate
)

// timesKind is how a utimes call passes its times.
type timesKind int

const (
	timesNone     timesKind = iota
	timesUtimbuf            // struct utimbuf: two longs, seconds
	timesTimeval            // struct timeval[2]
	timesTimespec           // struct timespec[2]
)

// none is the position of an argument a call does not have.
const none = -1

// call says where a handed-over call's arguments are, by position.
type call struct {
	op     op
	dirfd  int  // a directory descriptor (AT_FDCWD allowed)
	path   int  // a path; none with fd set: the call acts on a descriptor
	fd     int  // the descriptor acted on
	flags  int  // AT_* flags, or open's flags
	follow bool // a final symlink is followed (when no flags say otherwise)
	// Further arguments.
	a, b, c, d int
	times      timesKind
	// which is the value of setpriority's and ioprio_set's first argument
	// that names one process (PRIO_PROCESS, IOPRIO_WHO_PROCESS).
	which int32
	// The second entry of rename and link, and symlink's target.
	dirfd2, path2, a2 int
	how               bool // openat2: flags and mode in struct open_how at b
	rmdir             bool
}

// mk is a call of op whose arguments the options place.
func mk(o op, opts ...func(*call)) call {
	c := call{op: o, dirfd: none, path: none, fd: none, flags: none, a: none, b: none, c: none, d: none,
		dirfd2: none, path2: none, a2: none}
	for _, f := range opts {
		f(&c)
	}
	return c
}

func dirfd(i int) func(*call)  { return func(c *call) { c.dirfd = i } }
func pathAt(i int) func(*call) { return func(c *call) { c.path = i } }
func fd(i int) func(*call)     { return func(c *call) { c.fd = i } }
func flags(i int) func(*call)  { return func(c *call) { c.flags = i } }
func follow(c *call)           { c.follow = true }
func rmdir(c *call)            { c.rmdir = true }
func how(c *call)              { c.how = true }
func times(k timesKind) func(*call) {
	return func(c *call) { c.times = k }
}
func which(w int32) func(*call) { return func(c *call) { c.which = w } }
func args(a ...int) func(*call) {
	return func(c *call) {
		for i, p := range []*int{&c.a, &c.b, &c.c, &c.d}[:len(a)] {
			*p = a[i]
		}
	}
}
func second(dirfd, path int) func(*call) {
	return func(c *call) { c.dirfd2, c.path2 = dirfd, path }
}
func linkTarget(i int) func(*call) { return func(c *call) { c.a2 = i } }

// calls are the calls seccomp.LandlockOnly hands over, by name. The
// table is built on first use: every nsrun process (the CLI, the init)
// would otherwise build it at start, and only a Landlock-only sandbox's
// supervisor reads it.
var calls = sync.OnceValue(func() map[string]call {
	return map[string]call{
		"connect": mk(opConnect, fd(0), args(1, 2)),
		"listen":  mk(opListen, fd(0), args(1)),

		"chmod":     mk(opChmod, pathAt(0), follow, args(1)),
		"fchmod":    mk(opChmod, fd(0), args(1)),
		"fchmodat":  mk(opChmod, dirfd(0), pathAt(1), follow, args(2)),
		"fchmodat2": mk(opChmod, dirfd(0), pathAt(1), flags(3), follow, args(2)),

		"chown":    mk(opChown, pathAt(0), follow, args(1, 2)),
		"lchown":   mk(opChown, pathAt(0), args(1, 2)),
		"fchown":   mk(opChown, fd(0), args(1, 2)),
		"fchownat": mk(opChown, dirfd(0), pathAt(1), flags(4), follow, args(2, 3)),

		"utime":     mk(opUtimes, pathAt(0), follow, args(1), times(timesUtimbuf)),
		"utimes":    mk(opUtimes, pathAt(0), follow, args(1), times(timesTimeval)),
		"futimesat": mk(opUtimes, dirfd(0), pathAt(1), follow, args(2), times(timesTimeval)),
		// utimensat(fd, NULL, ...) acts on fd itself: see target.
		"utimensat": mk(opUtimes, dirfd(0), pathAt(1), flags(3), follow, args(2), times(timesTimespec)),

		// a name, b value, c size, d flags.
		"setxattr":  mk(opSetxattr, pathAt(0), follow, args(1, 2, 3, 4)),
		"lsetxattr": mk(opSetxattr, pathAt(0), args(1, 2, 3, 4)),
		"fsetxattr": mk(opSetxattr, fd(0), args(1, 2, 3, 4)),
		// setxattrat(dfd, path, at_flags, name, struct xattr_args *, size).
		"setxattrat": mk(opSetxattr, dirfd(0), pathAt(1), flags(2), follow, args(3, 4, 5)),

		"removexattr":   mk(opRemovexattr, pathAt(0), follow, args(1)),
		"lremovexattr":  mk(opRemovexattr, pathAt(0), args(1)),
		"fremovexattr":  mk(opRemovexattr, fd(0), args(1)),
		"removexattrat": mk(opRemovexattr, dirfd(0), pathAt(1), flags(2), follow, args(3)),

		"ioctl": mk(opIoctl, fd(0), args(1, 2)),

		"prlimit64":          mk(opPid),
		"sched_setaffinity":  mk(opPid),
		"sched_setscheduler": mk(opPid),
		"sched_setparam":     mk(opPid),
		"sched_setattr":      mk(opPid),
		"setpriority":        mk(opPidWhich, which(0)),
		"ioprio_set":         mk(opPidWhich, which(1)),

		// b is the mode.
		"creat":   mk(opOpen, pathAt(0), args(none, 1)),
		"open":    mk(opOpen, pathAt(0), flags(1), args(none, 2)),
		"openat":  mk(opOpen, dirfd(0), pathAt(1), flags(2), args(none, 3)),
		"openat2": mk(opOpen, dirfd(0), pathAt(1), how, args(none, 2)),
		// a is the mode.
		"mkdir":   mk(opMkdir, pathAt(0), args(1)),
		"mkdirat": mk(opMkdir, dirfd(0), pathAt(1), args(2)),
		"mknod":   mk(opMknod, pathAt(0), args(1)),
		"mknodat": mk(opMknod, dirfd(0), pathAt(1), args(2)),
		// symlink(target, linkpath), symlinkat(target, newdirfd, linkpath).
		"symlink":   mk(opSymlink, pathAt(1), linkTarget(0)),
		"symlinkat": mk(opSymlink, dirfd(1), pathAt(2), linkTarget(0)),
		"unlink":    mk(opUnlink, pathAt(0)),
		"rmdir":     mk(opUnlink, pathAt(0), rmdir),
		"unlinkat":  mk(opUnlink, dirfd(0), pathAt(1), flags(2)),
		"rename":    mk(opRename, pathAt(0), second(none, 1)),
		"renameat":  mk(opRename, dirfd(0), pathAt(1), second(2, 3)),
		"renameat2": mk(opRename, dirfd(0), pathAt(1), second(2, 3), flags(4)),
		"link":      mk(opLink, pathAt(0), second(none, 1)),
		"linkat":    mk(opLink, dirfd(0), pathAt(1), second(2, 3), flags(4)),
		// a is the length.
		"truncate": mk(opTruncate, pathAt(0), follow, args(1)),
	}
})

// selfTarget reports whether a pid-taking call names only the calling
// thread or its process: 0, the caller's tid or its tgid, compared as the
// kernel reads them (int). Another pid is refused even when it is a
// process of the sandbox: between a check and the call its number could
// be reused by a host process.
func selfTarget(c call, args [6]uint64, tid, tgid int) bool {
	pid := int32(args[0])
	if c.op == opPidWhich {
		if int32(args[0]) != c.which {
			return false
		}
		pid = int32(args[1])
	}
	return pid == 0 || int(pid) == tid || int(pid) == tgid
}
