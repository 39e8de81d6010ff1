package ptrace

// ObserveData is the value a filter's trace (SECCOMP_RET_DATA) gives a
// call the tracer looks at the result of.
const ObserveData = 0x4e53

// Call is a call the tracer can observe: a filter returns
// SECCOMP_RET_TRACE with ObserveData for it, when argument NonZero (if
// not -1) is not zero.
type Call struct {
	Name    string
	NonZero int
}

// pathArg is a path argument, relative to the descriptor in argument
// dirfd (-1: the working directory) unless absolute.
type pathArg struct{ dirfd, path int }

// callInfo says where a call's arguments are.
type callInfo struct {
	name  string
	paths []pathArg
	fd    int // a descriptor the call acts on when it names no path, or -1
	addr  int // a socket address, its length in the next argument, or -1
	flags int // open flags, or -1
	// nonZero: observed only when this argument is set (sendto's address).
	nonZero int
}

func at(dirfd, path int) []pathArg { return []pathArg{{dirfd, path}} }
func cwd(path int) []pathArg       { return []pathArg{{-1, path}} }

// calls are the calls that can be refused by a sandbox's mounts, Landlock
// rules or network, by where their arguments are. A name this
// architecture lacks (open, mkdir... on arm64) is left out.
var calls = []callInfo{
	{name: "open", paths: cwd(0), fd: -1, addr: -1, flags: 1, nonZero: -1},
	{name: "openat", paths: at(0, 1), fd: -1, addr: -1, flags: 2, nonZero: -1},
	{name: "creat", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "mkdir", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "mkdirat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "mknod", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "mknodat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "unlink", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "unlinkat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "rmdir", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "rename", paths: []pathArg{{-1, 0}, {-1, 1}}, fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "renameat", paths: []pathArg{{0, 1}, {2, 3}}, fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "renameat2", paths: []pathArg{{0, 1}, {2, 3}}, fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "link", paths: []pathArg{{-1, 0}, {-1, 1}}, fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "linkat", paths: []pathArg{{0, 1}, {2, 3}}, fd: -1, addr: -1, flags: -1, nonZero: -1},
	// A symlink's target is text, not a path the call acts on.
	{name: "symlink", paths: cwd(1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "symlinkat", paths: at(1, 2), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "truncate", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "chmod", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "fchmod", fd: 0, addr: -1, flags: -1, nonZero: -1},
	{name: "fchmodat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "fchmodat2", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "chown", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "lchown", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "fchown", fd: 0, addr: -1, flags: -1, nonZero: -1},
	{name: "fchownat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "utime", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "utimes", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "utimensat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "futimesat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "setxattr", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "lsetxattr", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "fsetxattr", fd: 0, addr: -1, flags: -1, nonZero: -1},
	{name: "removexattr", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "lremovexattr", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "fremovexattr", fd: 0, addr: -1, flags: -1, nonZero: -1},
	{name: "execve", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "execveat", paths: at(0, 1), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "chdir", paths: cwd(0), fd: -1, addr: -1, flags: -1, nonZero: -1},
	{name: "connect", fd: -1, addr: 1, flags: -1, nonZero: -1},
	{name: "bind", fd: -1, addr: 1, flags: -1, nonZero: -1},
	{name: "sendto", fd: -1, addr: 4, flags: -1, nonZero: 4},
	// The payload's own tracing, which cannot work under this tracer.
	{name: "ptrace", fd: -1, addr: -1, flags: -1, nonZero: -1},
}

// Calls are the calls a filter should hand the tracer on this
// architecture.
func Calls() []Call {
	var out []Call
	for _, c := range calls {
		if _, ok := number(c.name); ok {
			out = append(out, Call{Name: c.name, NonZero: c.nonZero})
		}
	}
	return out
}

// byNumber finds an observed call's arguments.
func byNumber(nr uint64) *callInfo {
	for i := range calls {
		if n, ok := number(calls[i].name); ok && n == nr {
			return &calls[i]
		}
	}
	return nil
}

// observed reports whether a filter made of Calls stops at c.
func observed(c Syscall) bool {
	ci := byNumber(c.NR)
	return ci != nil && (ci.nonZero < 0 || c.Args[ci.nonZero] != 0)
}

// infoFor is a call's arguments by name, for calls refused by a filter
// (some name paths too: a set-id mode on chmod or open).
func infoFor(name string) *callInfo {
	for i := range calls {
		if calls[i].name == name {
			return &calls[i]
		}
	}
	return nil
}

// sysNumber is a call's number on this architecture.
type sysNumber struct {
	name string
	nr   uint64
}

// number finds the number of an observed call.
func number(name string) (uint64, bool) {
	for _, n := range sysNumbers {
		if n.name == name {
			return n.nr, true
		}
	}
	return 0, false
}
