package rawinit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/rawinit/nofile"
	"github.com/nsrun/nsrun/mounts"
)

// Attr is how the parent starts the init: syscall.SysProcAttr's fields
// that the Go init is started with.
type Attr struct {
	Files       []uintptr // as syscall.ProcAttr.Files; ^uintptr(0): closed
	Cloneflags  uintptr
	Setsid      bool
	UseCgroupFD bool
	CgroupFD    int
	UIDs, GIDs  []syscall.SysProcIDMap
	PidFD       *int // set to the init's pidfd
	// BeforeRelease, if set, runs once the init's maps are written and
	// before it starts building: a cgroup v1 membership must be in place
	// before the payload exists.
	BeforeRelease func(pid int) error
	// ShareMemory clones the init with CLONE_VM where CanShareMemory
	// (see there for what it costs); elsewhere, and where clone3 is
	// refused, the init is a copy as without it (Init.SharesMemory).
	ShareMemory bool
}

// Init is a started raw init.
type Init struct {
	Pid int
	// SharesMemory says the init was cloned with CLONE_VM.
	SharesMemory bool
	prog         *Program
	args         []string
	m            *machine // the init's memory, when it shares this process's
	cloned       int64    // CLOCK_MONOTONIC nanoseconds just before the clone
}

// cloneArgs is struct clone_args up to cgroup (CLONE_ARGS_SIZE_VER2).
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls, setTID, setTIDSize, cgroup uint64
}

// Start compiles spec, clones the init into new namespaces and writes
// its id maps; the init then builds the sandbox and starts the payload,
// reporting on the status pipe (read it through Status). The calling
// goroutine must be locked to its thread and keep it until the init has
// ended: the init's parent-death signal follows that thread. A spec that
// Supports refuses is ErrUnsupported, and nothing was started.
func Start(spec *launch.Spec, a *Attr) (*Init, error) {
	capLast, err := readCapLast()
	if err != nil {
		return nil, err
	}
	var sync [2]int
	if err := unix.Pipe2(sync[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("pipe2: %w", err)
	}
	files := make([]int, len(a.Files))
	for i, f := range a.Files {
		files[i] = int(f)
		if f == ^uintptr(0) {
			files[i] = -1
		}
	}
	in := Input{Spec: spec, Files: files, SyncR: sync[0], SyncW: sync[1], Setsid: a.Setsid, CapLast: capLast}
	in.Args, in.Environ = argAreas()
	in.Vfork = canVfork && os.Getenv("NSRUN_RAW_FORK") != "1"
	in.Walk = walkPaths || !haveOpenat2()
	in.Nofile = originalNofile(spec)
	in.VM = a.ShareMemory && CanShareMemory && NoShareWhy(spec) == ""
	in.Filtered = spec.Verbose && underSeccomp()
	prog, err := Compile(in)
	if err != nil {
		unix.Close(sync[0])
		unix.Close(sync[1])
		return nil, err
	}
	m := link(prog)
	args := &cloneArgs{flags: uint64(a.Cloneflags), exitSignal: uint64(unix.SIGCHLD)}
	if a.PidFD != nil {
		args.flags |= unix.CLONE_PIDFD // the clone functions point it at their own frame
	}
	if a.UseCgroupFD {
		args.flags |= unix.CLONE_INTO_CGROUP
		args.cgroup = uint64(a.CgroupFD)
	}
	var pid uintptr
	var pidfd int32
	var errno syscall.Errno
	var now unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
	if in.VM {
		pid, pidfd, errno = cloneInitVM(m, args)
	}
	shared := in.VM && errno != unix.ENOSYS
	if !shared {
		if in.VM {
			// clone3 refused (a nested sandbox): the program for a
			// shared address space runs as well in a copy.
			m = link(prog)
		}
		pid, pidfd, errno = forkInit(m, args, !a.UseCgroupFD)
	}
	unix.Close(sync[0])
	if errno != 0 {
		unix.Close(sync[1])
		return nil, os.NewSyscallError("clone3", errno)
	}
	if a.PidFD != nil {
		*a.PidFD = int(pidfd)
	}
	err = writeMaps(int(pid), a.UIDs, a.GIDs)
	if err == nil && a.BeforeRelease != nil {
		err = a.BeforeRelease(int(pid))
	}
	if err != nil {
		unix.Close(sync[1]) // the init ends on the end of file
		_ = unix.Kill(int(pid), unix.SIGKILL)
		var ws unix.WaitStatus
		_, _ = unix.Wait4(int(pid), &ws, 0, nil)
		if a.PidFD != nil && *a.PidFD >= 0 {
			unix.Close(*a.PidFD)
			*a.PidFD = -1
		}
		return nil, err
	}
	_, err = unix.Write(sync[1], []byte{0})
	unix.Close(sync[1])
	if err != nil {
		return nil, fmt.Errorf("release the init: %w", err)
	}
	return &Init{Pid: int(pid), SharesMemory: shared, prog: prog, args: spec.Args, m: m, cloned: now.Nano()}, nil
}

// CanShareMemory says whether Attr.ShareMemory can be honoured here
// (amd64, where the init's clone onto a stack of its own is a few lines of
// assembly, and not under the race detector): the init is cloned with CLONE_VM, and nothing of the
// caller's address space is copied, however large, and neither side
// takes the copy-on-write faults that follow a fork. What that costs,
// which is why it is asked for and never a default:
//
// Sharing: the init never executes anything, so it shares the caller's
// memory for the sandbox's whole life, not until an exec (the payload,
// vforked from it, shares it until its execve). It writes only its
// machine and its own stack (both in m, which Init keeps alive until the
// init has ended) and runs no runtime code but, in the payload before its
// exec, runtime_AfterForkInChild, whose transient write of the runtime's
// inForkedChild Go makes only while its parent is suspended; here the
// caller runs on (it matters to a cgo program's sigaction in that window
// alone). It resets the signal actions it inherited (the caller's
// runtime's handlers would run on the caller's thread's signal stack).
//
// Keeping the payload out (sharedpid1_linux.go): the payload runs with
// pid 1's user ids, and seccomp allows ptrace, so pid 1 keeps a capability
// the payload lacks (ptrace and /proc/1/mem then need CAP_SYS_PTRACE);
// it is not made non-dumpable, which would make the caller non-dumpable
// too (the flag belongs to the address space) and, its /proc files then
// root's, leave only a root caller able to write a later init's id maps.
// The sandbox's procfs hides pid 1 (hidepid=ptraceable), whose /proc
// files the payload owns and some of which act on the shared memory
// (oom_score_adj, kept once for every process sharing it, the caller's
// included; clear_refs; coredump_filter) or show it (cmdline, the
// caller's argv, which the copy's overwrite cannot hide without
// overwriting the caller's); and pid 1 dumps no core.
const CanShareMemory = canCloneVM && !raceEnabled

// cloneInitVM clones the init with CLONE_VM: it shares this process's
// memory, runs on a stack of its own in m, and m must stay alive (Init
// holds it) until the init has ended.
//
//go:noinline
//go:norace
//go:nocheckptr
func cloneInitVM(m *machine, args *cloneArgs) (uintptr, int32, syscall.Errno) {
	m.initStack = make([]byte, 32<<10)
	vm := *args
	vm.flags |= unix.CLONE_VM
	vm.stack = uint64(uintptr(unsafe.Pointer(&m.initStack[0])))
	vm.stackSize = uint64(len(m.initStack))
	pidfd := int32(-1)
	runtime_BeforeFork()
	vm.pidfd = pidfdAt(&pidfd, vm.flags)
	pid, e := cloneVM(&vm, unsafe.Sizeof(vm), m)
	runtime_AfterFork()
	return pid, pidfd, syscall.Errno(e)
}

// pidfdAt is where clone is to write the pidfd, if flags ask for one:
// taken after runtime_BeforeFork, from which on the stack cannot move
// (the kernel writes through a bare address, which a stack copied by a
// call's growth or the collector's shrinking would not follow).
//
//go:nosplit
func pidfdAt(pidfd *int32, flags uint64) uint64 {
	if flags&unix.CLONE_PIDFD == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(pidfd)))
}

// forkInit clones the child, which runs m and never returns.
//
//go:noinline
//go:norace
//go:nocheckptr
func forkInit(m *machine, args *cloneArgs, mayClone bool) (uintptr, int32, syscall.Errno) {
	pidfd := int32(-1)
	runtime_BeforeFork()
	args.pidfd = pidfdAt(&pidfd, args.flags)
	pid, _, e := syscall.RawSyscall(unix.SYS_CLONE3, uintptr(unsafe.Pointer(args)), unsafe.Sizeof(*args), 0)
	if e == unix.ENOSYS && mayClone {
		// A seccomp profile refuses clone3 (nsrun's own, in a nested
		// sandbox): clone takes the same flags but a cgroup, and puts
		// the pidfd where parent_tid points.
		pid, _, e = syscall.RawSyscall6(unix.SYS_CLONE, uintptr(args.flags)|uintptr(args.exitSignal), 0, uintptr(args.pidfd), 0, 0, 0)
	}
	if e != 0 || pid != 0 {
		runtime_AfterFork()
		return pid, pidfd, e
	}
	m.run()
	exit(launch.ExitSetup)
	return 0, -1, 0
}

// originalNofile is the RLIMIT_NOFILE the payload gets back, as the Go
// runtime's exec restores it: the one this process started with, where Go
// raised the soft limit and it is still what Go set; nil where the spec
// sets nofile (as the Go init's Setrlimit, which cancels the restore).
func originalNofile(spec *launch.Spec) *[2]uint64 {
	for _, r := range spec.Rlimits {
		if r.Name == "nofile" {
			return nil
		}
	}
	soft, hard, ok := nofile.Original()
	if !ok || hard == 0 || soft >= hard-1 {
		return nil // Go left it as it was
	}
	var now unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &now); err == nil && (now.Cur != hard-1 || now.Max != hard) {
		return nil // changed since: as Go's exec, leave it
	}
	return &[2]uint64{soft, hard}
}

// walkPaths has the tests walk paths where openat2 works.
var walkPaths = false

// haveOpenat2 says whether openat2 works in this process (a filter that
// refuses it is inherited by the init). Asked at each start: a program
// may load a filter between two.
func haveOpenat2() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err == nil {
		unix.Close(fd)
	}
	return err != unix.ENOSYS
}

// HostSupports says why the raw init cannot run in this process, or nil:
// mount_setattr refused with ENOSYS (a kernel before 5.12, or a filter
// that refuses it), for which the Go init remounts instead.
func HostSupports() error {
	_, _, e := unix.Syscall6(unix.SYS_MOUNT_SETATTR, ^uintptr(0), 0, 0, 0, 0, 0)
	if e == unix.ENOSYS {
		return unsupported("a kernel or filter without mount_setattr")
	}
	return nil
}

func writeMaps(pid int, uids, gids []syscall.SysProcIDMap) error {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	if err := os.WriteFile(dir+"uid_map", formatMap(uids), 0); err != nil {
		return fmt.Errorf("write uid_map: %w", err)
	}
	if err := os.WriteFile(dir+"setgroups", []byte("deny"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("write setgroups: %w", err)
	}
	if err := os.WriteFile(dir+"gid_map", formatMap(gids), 0); err != nil {
		return fmt.Errorf("write gid_map: %w", err)
	}
	return nil
}

func formatMap(m []syscall.SysProcIDMap) []byte {
	var b []byte
	for _, e := range m {
		b = fmt.Appendf(b, "%d %d %d\n", e.ContainerID, e.HostID, e.Size)
	}
	return b
}

func readCapLast() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, fmt.Errorf("read cap_last_cap: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("parse cap_last_cap %q: %w", b, err)
	}
	return n, nil
}

// Status reads the init's records from r (the status pipe) and gives
// them as launch.Frame'd launch.Msg, as the Go init writes them.
func (i *Init) Status(r io.Reader) io.Reader {
	return &statusReader{r: r, init: i}
}

type statusReader struct {
	r       io.Reader
	init    *Init
	pending []byte
}

func (s *statusReader) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		var b [recordSize]byte
		if _, err := io.ReadFull(s.r, b[:]); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return 0, err
		}
		if binary.NativeEndian.Uint32(b[:]) == recLog && binary.NativeEndian.Uint64(b[32:]) == 0 {
			// A milestone the init did not time (past its filters): timed
			// as it arrives, nsrun reading while the init sets up.
			var now unix.Timespec
			if unix.ClockGettime(unix.CLOCK_MONOTONIC, &now) == nil {
				binary.NativeEndian.PutUint64(b[32:], uint64(now.Nano()))
			}
		}
		msg := s.init.Decode(b[:])
		f, err := launch.Frame(&msg, "status")
		if err != nil {
			return 0, err
		}
		s.pending = f
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// Decode turns one record into the launch.Msg the Go init would have
// sent.
func (i *Init) Decode(b []byte) launch.Msg {
	u32 := func(off int) uint32 { return binary.NativeEndian.Uint32(b[off:]) }
	i64 := func(off int) int64 { return int64(binary.NativeEndian.Uint64(b[off:])) }
	switch u32(0) {
	case recStarted:
		return launch.Msg{Kind: launch.MsgStarted, Pid: int(u32(20)), Code: int(int32(u32(24)))}
	case recExit:
		return launch.Msg{Kind: launch.MsgExit, Code: int(u32(12)), Signal: int(u32(16)),
			Usage: &launch.Usage{UserUS: i64(32), SystemUS: i64(40), MaxRSSKiB: i64(48)}}
	case recLog:
		m := launch.Msg{Kind: launch.MsgLog, Msg: i.step(int(u32(4)))}
		if errno := syscall.Errno(u32(8)); errno != 0 {
			m.Msg += ": " + errno.Error()
		}
		if at := i64(32); at != 0 && i.cloned != 0 {
			// Since the clone, as the Go init times its steps from its
			// start.
			m.Msg += fmt.Sprintf(" (%.2f ms)", float64(at-i.cloned)/1e6)
		}
		return m
	case recError:
		step, errno := int(u32(4)), syscall.Errno(u32(8))
		what := "step " + strconv.Itoa(step)
		if step < len(i.prog.Steps) {
			what = i.prog.Steps[step]
		}
		m := launch.Msg{Kind: launch.MsgError, Code: int(u32(12)), Errno: int(errno), Msg: what + ": " + errno.Error()}
		if msg, wrapped, ok := i.prog.words(step, what, errno); ok {
			m.Msg, m.Errno = msg, int(wrapped)
			return m
		}
		switch {
		case i.prog.Explain[step] == "factory":
			// netproxy's words for what ends its factory.
			m.Errno, m.Msg = 0, what+": "+factoryEnd[errno]
		case step == i.prog.SearchStep && i.prog.Path != "" && errno == syscall.ENOENT:
			m.Errno, m.Msg = 0, i.args[0]+": command not found in PATH "+i.prog.Path
		case errno == syscall.EPERM:
			m.Msg += explain(i.prog.Explain[step], i.prog.Rlimits[step])
		}
		return m
	}
	return launch.Msg{Kind: launch.MsgError, Code: launch.ExitSetup, Msg: fmt.Sprintf("raw init: unknown record %d", u32(0))}
}

// underSeccomp says whether this process runs under a seccomp filter
// (/proc/self/status's Seccomp: 2), or cannot tell.
func underSeccomp() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Seccomp:"); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return true
}

// argAreas reads where this process's argv and environment are
// (/proc/self/stat fields 48 to 51); none where it cannot tell.
func argAreas() (args, environ Area) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return
	}
	f := strings.Fields(string(b[i+1:])) // from field 3 on
	if len(f) < 49 {
		return
	}
	n := make([]uint64, 4)
	for j := range n {
		if n[j], err = strconv.ParseUint(f[45+j], 10, 64); err != nil {
			return
		}
	}
	if n[1] > n[0] {
		args = Area{Start: uintptr(n[0]), Len: uintptr(n[1] - n[0])}
	}
	if n[3] > n[2] {
		environ = Area{Start: uintptr(n[2]), Len: uintptr(n[3] - n[2])}
	}
	return
}

// explain is what the Go init adds to an EPERM at these steps (package
// mounts' ErrProcRefused and ErrSysRefused and launch's advice, launch's
// rlimit message).
func explain(kind string, r launch.Rlimit) string {
	switch kind {
	case "proc":
		return " (" + mounts.ErrProcRefused.Error() + ": the host's /proc is partly masked or over-mounted, as when nested in a container: the kernel refuses a new procfs then)" +
			"; --proc host binds that /proc read-only instead (reported as partial: it lists the processes outside the sandbox)"
	case "sys":
		return " (" + mounts.ErrSysRefused.Error() + ": the /sys in view is partly masked or over-mounted, as in a container, or the network namespace is not the sandbox's: the kernel refuses a new sysfs then)" +
			"; --sys host binds that /sys read-only instead (it shows the host's network interfaces and cgroup tree)"
	case "rlimit":
		var cur unix.Rlimit
		if res, ok := rlimits[r.Name]; ok && unix.Getrlimit(res, &cur) == nil {
			return fmt.Sprintf(" (cannot raise the hard limit above %d)", cur.Max)
		}
	}
	return ""
}
