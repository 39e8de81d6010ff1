package supervise

// op is what a handed-over call does.
type op int

const (
	opConnect op = iota + 1
	opChmod
	opChown
	opUtimes
	opSetxattr
	opRemovexattr
	opIoctl
	opPid      // the pid is argument 0
	opPidWhich // setpriority and ioprio_set: which in argument 0, who in 1
)

// timesKind is how a utimes call passes its times.
type timesKind int

const (
	timesNone     timesKind = iota
	timesUtimbuf            // struct utimbuf: two longs, seconds
	timesTimeval            // struct timeval[2]
	timesTimespec           // struct timespec[2]
)

// call says where a handed-over call's arguments are; -1 is "none".
type call struct {
	op     op
	dirfd  int  // a directory descriptor (AT_FDCWD allowed)
	path   int  // a path; -1 with fd set: the call acts on a descriptor
	fd     int  // the descriptor acted on
	flags  int  // AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH
	follow bool // a final symlink is followed (when no flags say otherwise)
	// Further arguments, by position.
	a, b, c, d int
	times      timesKind
	// which is the value of setpriority's and ioprio_set's first argument
	// that names one process (PRIO_PROCESS, IOPRIO_WHO_PROCESS).
	which int32
}

// none is the position of an argument a call does not have.
const none = -1

// calls are the calls seccomp.LandlockOnly hands over, by name.
var calls = map[string]call{
	"connect": {op: opConnect, dirfd: none, path: none, fd: 0, flags: none, a: 1, b: 2, c: none, d: none},

	"chmod":     {op: opChmod, dirfd: none, path: 0, fd: none, flags: none, follow: true, a: 1, b: none, c: none, d: none},
	"fchmod":    {op: opChmod, dirfd: none, path: none, fd: 0, flags: none, a: 1, b: none, c: none, d: none},
	"fchmodat":  {op: opChmod, dirfd: 0, path: 1, fd: none, flags: none, follow: true, a: 2, b: none, c: none, d: none},
	"fchmodat2": {op: opChmod, dirfd: 0, path: 1, fd: none, flags: 3, follow: true, a: 2, b: none, c: none, d: none},

	"chown":    {op: opChown, dirfd: none, path: 0, fd: none, flags: none, follow: true, a: 1, b: 2, c: none, d: none},
	"lchown":   {op: opChown, dirfd: none, path: 0, fd: none, flags: none, a: 1, b: 2, c: none, d: none},
	"fchown":   {op: opChown, dirfd: none, path: none, fd: 0, flags: none, a: 1, b: 2, c: none, d: none},
	"fchownat": {op: opChown, dirfd: 0, path: 1, fd: none, flags: 4, follow: true, a: 2, b: 3, c: none, d: none},

	"utime":     {op: opUtimes, dirfd: none, path: 0, fd: none, flags: none, follow: true, a: 1, b: none, c: none, d: none, times: timesUtimbuf},
	"utimes":    {op: opUtimes, dirfd: none, path: 0, fd: none, flags: none, follow: true, a: 1, b: none, c: none, d: none, times: timesTimeval},
	"futimesat": {op: opUtimes, dirfd: 0, path: 1, fd: none, flags: none, follow: true, a: 2, b: none, c: none, d: none, times: timesTimeval},
	// utimensat(fd, NULL, ...) acts on fd itself: see handle.
	"utimensat": {op: opUtimes, dirfd: 0, path: 1, fd: none, flags: 3, follow: true, a: 2, b: none, c: none, d: none, times: timesTimespec},

	// a name, b value, c size, d flags.
	"setxattr":  {op: opSetxattr, dirfd: none, path: 0, fd: none, flags: none, follow: true, a: 1, b: 2, c: 3, d: 4},
	"lsetxattr": {op: opSetxattr, dirfd: none, path: 0, fd: none, flags: none, a: 1, b: 2, c: 3, d: 4},
	"fsetxattr": {op: opSetxattr, dirfd: none, path: none, fd: 0, flags: none, a: 1, b: 2, c: 3, d: 4},
	// setxattrat(dfd, path, at_flags, name, struct xattr_args *, size).
	"setxattrat": {op: opSetxattr, dirfd: 0, path: 1, fd: none, flags: 2, follow: true, a: 3, b: 4, c: 5, d: none},

	"removexattr":   {op: opRemovexattr, dirfd: none, path: 0, fd: none, flags: none, follow: true, a: 1, b: none, c: none, d: none},
	"lremovexattr":  {op: opRemovexattr, dirfd: none, path: 0, fd: none, flags: none, a: 1, b: none, c: none, d: none},
	"fremovexattr":  {op: opRemovexattr, dirfd: none, path: none, fd: 0, flags: none, a: 1, b: none, c: none, d: none},
	"removexattrat": {op: opRemovexattr, dirfd: 0, path: 1, fd: none, flags: 2, follow: true, a: 3, b: none, c: none, d: none},

	"ioctl": {op: opIoctl, dirfd: none, path: none, fd: 0, flags: none, a: 1, b: 2, c: none, d: none},

	"prlimit64":          {op: opPid},
	"sched_setaffinity":  {op: opPid},
	"sched_setscheduler": {op: opPid},
	"sched_setparam":     {op: opPid},
	"sched_setattr":      {op: opPid},
	"setpriority":        {op: opPidWhich, which: 0},
	"ioprio_set":         {op: opPidWhich, which: 1},
}

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
