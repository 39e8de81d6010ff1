package seccomp

// errEACCES is what a refused unix datagram socket returns.
const errEACCES = 13

// File attribute ioctls (linux/fs.h), which Landlock does not check on
// regular files: FS_IOC_SETFLAGS (chattr) and FS_IOC_FSSETXATTR take a
// plain value the supervisor can check and pass on; FS_IOC_ENABLE_VERITY
// (which makes a file read-only for good) and FS_IOC_SET_ENCRYPTION_POLICY
// take structures that point into the caller's memory, so the supervisor
// refuses them.
const (
	fsIocSetflags            = 0x40086602
	fsIoc32Setflags          = 0x40046602
	fsIocFssetxattr          = 0x401c5820
	fsIocEnableVerity        = 0x40806685
	fsIocSetEncryptionPolicy = 0x800c6613
)

// The inode generation ioctls (FS_IOC_SETVERSION, ext4's own, and their
// 32-bit forms) need only ownership, not a writable descriptor: refused.
var setVersionIoctls = []uint64{0x40087602, 0x40047602, 0x40086604, 0x40046604}

// LandlockOnlyOptions selects the compensations a sandbox of Landlock and
// seccomp alone needs on this kernel.
type LandlockOnlyOptions struct {
	// Connect hands every connect(2) to the supervisor: below Landlock
	// ABI 9 nothing checks which pathname unix socket a process connects
	// to.
	Connect bool
	// Unix is which unix sockets the payload may create.
	Unix UnixSockets
	// Entries hands over the calls that create, remove, rename or open
	// for writing a directory entry, so the supervisor can do them in
	// the directories Landlock cannot give those rights (those on the way
	// to a read-only or denied path inside a writable one).
	Entries bool
	// Listen hands listen(2) to the supervisor: where TCP binding is
	// restricted, listen() on a socket never bound takes a port no bind()
	// rule saw. (The guard would hand it over itself, but a task tree has
	// one listener: this filter's.)
	Listen bool
}

// UnixSockets says which unix sockets a Landlock-only payload may create.
type UnixSockets int

const (
	// UnixAll: every kind (what they reach is checked elsewhere, or not
	// at all).
	UnixAll UnixSockets = iota
	// UnixNoDatagram refuses datagram sockets: a datagram can be
	// addressed to any socket path with sendto or sendmsg, where no filter
	// can see the address. Used with Connect.
	UnixNoDatagram
	// UnixPairsOnly refuses socket(AF_UNIX) altogether, and datagram
	// socketpairs: where connect cannot be checked, a socket that was
	// never unconnected reaches nothing.
	UnixPairsOnly
)

// Calls that change a file's metadata, which Landlock does not check: the
// supervisor performs them when the file lies in a writable path.
var metadataCalls = []string{
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
}

// entryCalls create, remove or rename directory entries; the opens among
// them are handed over only when they create or write.
var entryCalls = []string{
	"creat", "openat2", "mkdir", "mkdirat", "mknod", "mknodat", "unlink", "unlinkat", "rmdir",
	"rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate",
}

// Open flags, the same on every architecture nsrun supports.
const (
	oWronly  = 0x1
	oRdwr    = 0x2
	oAccmode = 0x3
	oCreat   = 0x40
	oTrunc   = 0x200
)

// pidCalls take a pid as their first argument and change the scheduling
// or the limits of that process, which Landlock does not scope.
var pidCalls = []string{"sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"}

// LandlockOnly is the filter a sandbox without namespaces loads beneath its
// profile, for what Landlock does not see. It is a profile of its own, so
// it compiles and is tested like any other; the kernel applies the
// strictest action of stacked filters (an errno beats a notification),
// and of two errnos the newest filter's (the profile's, loaded after).
//
// Calls it hands to the supervisor (ActNotify), which checks them against
// the policy and performs them, or lets them continue when only register
// values decide:
//   - connect (with Options.Connect): the supervisor resolves a pathname
//     unix address itself and connects only to sockets in the writable
//     paths;
//   - chmod, chown, utimes and xattr calls, and the FS_IOC_SETFLAGS and
//     FS_IOC_FSSETXATTR ioctls: performed only on files in the writable
//     paths (FS_IOC_ENABLE_VERITY and FS_IOC_SET_ENCRYPTION_POLICY are
//     refused);
//   - prlimit64 with a new limit, setpriority, ioprio_set and the
//     sched_set* calls on another pid than 0: allowed only on the caller
//     itself;
//   - listen (with Options.Listen): the supervisor performs it only on a
//     TCP socket bound to an allowed port;
//   - with Options.Entries, open and openat that create, truncate or
//     write, creat, openat2, and the calls that make, remove, rename or
//     link entries: the supervisor does them in the directories Landlock
//     cannot give those rights, and lets the kernel do the rest.
//
// Calls it refuses: the unix sockets Options.Unix does not allow (EACCES);
// io_uring (EPERM), whose operations pass no filter and no supervisor.
func LandlockOnly(o LandlockOnlyOptions) Profile {
	p := Profile{Name: "landlock-only", DefaultAction: Action{Kind: ActAllow}}
	notify := Action{Kind: ActNotify}
	add := func(r ...Rule) { p.Rules = append(p.Rules, r...) }
	ne0 := func(i uint) Arg { return Arg{Index: i, Op: OpNE, Value: 0} }

	add(
		eperm("io_uring operations (connect, setxattr...) pass no syscall filter and no supervisor",
			"io_uring_setup", "io_uring_enter", "io_uring_register"),
		Rule{Names: metadataCalls, Action: notify,
			Reason: "Landlock does not check metadata changes: the supervisor performs them only in the writable paths"},
		// A new limit on another process (RLIMIT_CPU 0 kills it); reading
		// one (a NULL new limit) changes nothing.
		Rule{Names: []string{"prlimit64"}, Action: notify, Args: []Arg{ne0(0), ne0(2)},
			Reason: "limits of another process: Landlock does not scope prlimit"},
		// setpriority(which, who): PRIO_PGRP and PRIO_USER reach every
		// process of a group or of the user, host ones included.
		Rule{Names: []string{"setpriority"}, Action: notify, Args: []Arg{ne0(0)},
			Reason: "priority of a process group or of every process of the user"},
		Rule{Names: []string{"setpriority"}, Action: notify, Args: []Arg{ne0(1)},
			Reason: "priority of another process: Landlock does not scope setpriority"},
		// ioprio_set(which, who): IOPRIO_WHO_PROCESS is 1.
		Rule{Names: []string{"ioprio_set"}, Action: notify, Args: []Arg{{Index: 0, Op: OpNE, Value: 1}},
			Reason: "I/O priority of a process group or of every process of the user"},
		Rule{Names: []string{"ioprio_set"}, Action: notify, Args: []Arg{ne0(1)},
			Reason: "I/O priority of another process: Landlock does not scope ioprio_set"},
		Rule{Names: pidCalls, Action: notify, Args: []Arg{ne0(0)},
			Reason: "scheduling of another process: Landlock does not scope sched_set*"},
	)
	for _, req := range setVersionIoctls {
		add(Rule{Names: []string{"ioctl"}, Action: Action{Kind: ActErrno, Errno: errEPERM}, Args: []Arg{masked(1, low32, req)},
			Reason: "an inode's generation changes with ownership alone, in any path: Landlock does not check it"})
	}
	for _, req := range []uint64{fsIocSetflags, fsIoc32Setflags, fsIocFssetxattr, fsIocEnableVerity, fsIocSetEncryptionPolicy} {
		add(Rule{Names: []string{"ioctl"}, Action: notify, Args: []Arg{masked(1, low32, req)},
			Reason: "file attributes (chattr, verity, encryption) are not checked by Landlock: the supervisor decides"})
	}
	if o.Entries {
		add(Rule{Names: entryCalls, Action: notify,
			Reason: "Landlock cannot let a directory on the way to a protected path create, remove or rename entries: the supervisor does, by the policy"})
		// open and openat: the ones that create, truncate or write.
		for _, c := range []struct {
			name  string
			flags uint
		}{{"open", 1}, {"openat", 2}} {
			for _, a := range []Arg{masked(c.flags, oCreat, oCreat), masked(c.flags, oTrunc, oTrunc),
				masked(c.flags, oAccmode, oWronly), masked(c.flags, oAccmode, oRdwr), masked(c.flags, oAccmode, oAccmode)} {
				add(Rule{Names: []string{c.name}, Action: notify, Args: []Arg{a},
					Reason: "an open that creates or writes may need the supervisor, where Landlock cannot give the right"})
			}
		}
	}
	if o.Listen {
		add(Rule{Names: []string{"listen"}, Action: notify,
			Reason: "listen() on a socket never bound takes a port no bind() rule saw: the supervisor checks it"})
	}
	if o.Connect {
		add(Rule{Names: []string{"connect"}, Action: notify,
			Reason: "Landlock below ABI 9 does not check which pathname unix socket is connected to: the supervisor does"})
	}
	refuse := func(name, reason string, args ...Arg) {
		add(Rule{Names: []string{name}, Action: Action{Kind: ActErrno, Errno: errEACCES},
			Args: append([]Arg{masked(0, low32, 1)}, args...), Reason: reason})
	}
	// SOCK_RAW is a datagram socket too (unix_create makes it one).
	const why = "a unix datagram can be sent to any socket path, where no filter sees the address"
	for _, typ := range []uint64{sockDgram, sockRaw} {
		dgram := masked(1, sockTypeMask, typ)
		switch o.Unix {
		case UnixNoDatagram:
			refuse("socket", why, dgram)
			refuse("socketpair", why, dgram)
		case UnixPairsOnly:
			refuse("socketpair", why, dgram)
		}
	}
	if o.Unix == UnixPairsOnly {
		refuse("socket", "nothing checks which socket path a unix socket connects to: only connected pairs are allowed")
	}
	return p
}

const sockTypeMask = 0xf

// Number is the number of the call name on goarch (runtime.GOARCH names).
func Number(goarch, name string) (uint32, bool) {
	a, ok := arches[goarch]
	if !ok {
		return 0, false
	}
	return a.syscalls.lookup(name)
}
