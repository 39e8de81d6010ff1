package rawinit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

// Input is what Compile needs besides the spec: how the parent hands the
// child its descriptors, and facts of the host read beforehand.
type Input struct {
	Spec *launch.Spec
	// Files are the parent's descriptors that become the init's 0, 1, 2,
	// ... (launch.SpecFD is the lifeline, launch.StatusFD the status
	// pipe); -1 leaves that number closed.
	Files []int
	// SyncR and SyncW are the pipe the child waits on until the parent
	// has written its uid and gid maps.
	SyncR, SyncW int
	Setsid       bool
	// CapLast is /proc/sys/kernel/cap_last_cap.
	CapLast int
	// Vfork has the init vfork the payload on a stack of its own instead
	// of forking it (amd64).
	Vfork bool
	// Nofile, if set, is the soft and hard RLIMIT_NOFILE the payload
	// gets back: the ones this process started with, which Go raised
	// (the Go init's payload gets them from the Go runtime's exec).
	Nofile *[2]uint64
	// VM: the init is cloned with CLONE_VM and shares the caller's
	// memory: it resets the signal handlers it inherited (the caller's
	// runtime's) and leaves the caller's argv alone; it stays dumpable
	// (the flag is the caller's too) and keeps keptCap instead, dumps no
	// core, and mounts procfs with hidepid=ptraceable (sharedPid1). A
	// spec NoShareWhy refuses is an error.
	VM bool
	// Walk opens paths one component at a time: openat2 is refused
	// with ENOSYS here (a kernel before 5.6, or a nested sandbox, whose
	// filter refuses it), and the cloned init inherits that.
	Walk bool
	// Filtered: this process runs under a seccomp filter (a nested
	// sandbox's), which the init inherits and which may kill a call the
	// init would make for itself alone: its -v milestones are then all
	// timed by nsrun, as those past its own filters are.
	Filtered bool
	// Args and Environ are where the parent's argv and environment are
	// (/proc/self/stat): the init overwrites its copy of them, so that
	// its /proc/1/cmdline says launch.InitStage alone, as the Go init's
	// does, and neither shows the caller's.
	Args, Environ Area
}

// Area is a range of the parent's memory.
type Area struct{ Start, Len uintptr }

// ErrUnsupported is what Compile fails with for a spec this prototype
// does not build; the error names the setting.
var ErrUnsupported = errors.New("not supported by the raw init")

func unsupported(what string) error { return fmt.Errorf("%s: %w", what, ErrUnsupported) }

// Supports says why spec cannot be built by the raw init, or nil.
func Supports(spec *launch.Spec) error {
	switch {
	case spec.Supervisor != nil:
		return unsupported("the Landlock-only supervisor")
	case spec.TTY != nil:
		return unsupported("a pseudo-terminal")
	case len(spec.ExtraFiles) > 0:
		return unsupported("ExtraFiles")
	case spec.HoldListener:
		return unsupported("a held seccomp listener")
	case spec.Session:
		return unsupported("a session")
	case spec.AsPid1:
		return unsupported("the payload as pid 1")
	case spec.Caps != nil:
		return unsupported("capabilities kept")
	case spec.Argv0 != "":
		return unsupported("an argv[0] of its own")
	case spec.Plan == nil:
		return unsupported("a spec without a mount plan")
	case spec.Plan.Remount:
		return unsupported("remounting instead of mount_setattr")
	case len(spec.Args) == 0:
		return unsupported("an empty command")
	}
	for _, p := range spec.Seccomp {
		if seccomp.Notifies(p) {
			return unsupported("a seccomp filter that notifies")
		}
	}
	if spec.Net {
		if call := factoryRefused(spec.Seccomp); call != "" {
			return unsupported("a seccomp filter that refuses the socket factory's " + call)
		}
	}
	if err := supportsOp(spec.Plan.Root, true); err != nil {
		return err
	}
	for _, op := range spec.Plan.Ops {
		if err := supportsOp(op, false); err != nil {
			return err
		}
	}
	if err := supportsFiles(spec.Plan.Ops); err != nil {
		return err
	}
	for _, r := range spec.Rlimits {
		if _, ok := rlimits[r.Name]; !ok {
			return unsupported("rlimit " + r.Name)
		}
	}
	return nil
}

func supportsOp(op mounts.Op, root bool) error {
	if len(op.Mirror) > 0 {
		return unsupported("a mirror on " + op.Path)
	}
	if root {
		if op.Kind != mounts.OpBind {
			return unsupported("a root that is not a bind")
		}
		return nil
	}
	switch op.Kind {
	case mounts.OpBind, mounts.OpProc, mounts.OpSys, mounts.OpFile, mounts.OpEmptyFile:
	case mounts.OpTmpfs:
		for _, mp := range op.Mountpoints {
			if mp.Link != "" {
				return unsupported("a symlink in the tmpfs on " + op.Path)
			}
		}
	case mounts.OpDev:
		if len(op.Devices) > 0 {
			return unsupported("devices in /dev")
		}
		for _, mp := range op.Mountpoints {
			if mp.Link != "" || strings.Contains(mp.Rel, "/") {
				return unsupported("mount point " + mp.Rel + " in /dev")
			}
		}
	default:
		return unsupported(kindNames[op.Kind] + " on " + op.Path)
	}
	return nil
}

var kindNames = map[mounts.OpKind]string{
	mounts.OpHostProc: "the host's /proc", mounts.OpPinLink: "a pinned symlink", mounts.OpHostSys: "the host's /sys",
	mounts.OpOverlay: "an overlay", mounts.OpMirror: "a mirror",
}

var rlimits = map[string]int{
	"nofile": unix.RLIMIT_NOFILE, "nproc": unix.RLIMIT_NPROC, "as": unix.RLIMIT_AS, "cpu": unix.RLIMIT_CPU,
	"fsize": unix.RLIMIT_FSIZE, "core": unix.RLIMIT_CORE, "stack": unix.RLIMIT_STACK, "memlock": unix.RLIMIT_MEMLOCK,
}

// Compile turns in into the child's program. It is pure: it reads
// nothing, and the same input gives the same program.
func Compile(in Input) (*Program, error) {
	spec := in.Spec
	if err := Supports(spec); err != nil {
		return nil, err
	}
	b := newBuilder()
	b.reserve(len(spec.Plan.Ops))
	b.vfork, b.walk, b.nofile, b.vm = in.Vfork, in.Walk, in.Nofile, in.VM
	if in.VM {
		if why := NoShareWhy(spec); why != "" {
			return nil, fmt.Errorf("an init that shares this process's memory: %s", why)
		}
	}
	b.p.Verbose, b.filtered = spec.Verbose, in.Filtered
	toExit := b.prologue(in)
	if spec.Loopback {
		b.loopback()
		b.note("lo up")
		b.loopbackAddrs(spec.LoopbackAddrs, spec.Verbose)
	}
	b.mounts(spec.Plan)
	b.note("mounts built, old root detached")
	if !in.VM {
		// An init sharing the caller's memory would make the caller
		// non-dumpable too: it keeps keptCap instead (sharedPid1).
		b.begin("prctl PR_SET_DUMPABLE 0")
		b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_DUMPABLE), imm(0))
	}
	if spec.Hostname != "" {
		b.begin("sethostname %q", spec.Hostname)
		b.sys(unix.SYS_SETHOSTNAME, b.str(spec.Hostname), immInt(len(spec.Hostname)))
	}
	b.rlimits(spec.Rlimits)
	if spec.Landlock != nil {
		if spec.Landlock.Handled != (landlock.Request{}) {
			b.landlock(*spec.Landlock)
		}
		// Told even where nothing is handled, as the Go init tells it.
		b.note("landlock applied")
	}
	b.dropPrivileges(in.CapLast, in.VM)
	b.note("capabilities dropped, no_new_privs set")
	for i, p := range spec.Seccomp {
		b.seccomp(i, p)
	}
	if len(spec.Seccomp) > 0 {
		b.filtered = true
		b.note("seccomp filter loaded")
	}
	b.begin("chdir %s inside the sandbox", spec.Dir)
	b.sys(unix.SYS_CHDIR, b.str(spec.Dir))
	fac := [2]Arg{imm(^uintptr(0)), imm(0)}
	if spec.Net {
		fac = [2]Arg{immInt(launch.NetSockFD), b.awaitReady()}
		b.note("network listeners in place")
	}
	b.payload(spec, fac)
	for _, i := range toExit {
		b.p.Ops[i].To = b.label()
	}
	b.begin("the parent is gone")
	b.add(Op{Code: opExit, Args: [6]Arg{immInt(launch.ExitSetup)}})
	return b.p, nil
}

// prologue waits for the id maps, places the descriptors, and sets the
// parent-death signal; it returns the ops that jump to the exit when the
// parent is gone.
func (b *builder) prologue(in Input) []int {
	b.begin("wait for the uid and gid maps")
	b.sys(unix.SYS_CLOSE, immInt(in.SyncW))
	_, n := b.sysTo(unix.SYS_READ, immInt(in.SyncR), b.scratch("byte", 8), imm(1))
	gone := b.add(Op{Code: opJumpReg, Args: [6]Arg{reg(n)}, Eq: true}) // end of file: no maps
	if in.VM {
		b.defaultSignals()
		b.noCore()
	} else if in.Args.Len > 0 || in.Environ.Len > 0 {
		b.hideArgs(in.Args, in.Environ)
	}
	b.begin("place the init's descriptors")
	for _, mv := range placeFiles(in.Files) {
		if mv.to < 0 {
			b.ok(b.sys(unix.SYS_CLOSE, immInt(mv.from)), syscall.EBADF)
			continue
		}
		b.sys(unix.SYS_DUP3, immInt(mv.from), immInt(mv.to), imm(0))
	}
	// A cloned child holds every descriptor of its parent: all but its
	// own go, and what the payload must not inherit is closed at its exec.
	b.sys(unix.SYS_CLOSE_RANGE, immInt(len(in.Files)), imm(^uintptr(0)>>32), imm(0))
	b.sys(unix.SYS_CLOSE_RANGE, immInt(launch.SpecFD), imm(^uintptr(0)>>32), imm(unix.CLOSE_RANGE_CLOEXEC))
	if in.Setsid {
		b.begin("setsid")
		b.sys(unix.SYS_SETSID)
	}
	b.begin("prctl PR_SET_NAME")
	b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_NAME), b.str(launch.InitStage))
	b.begin("prctl PR_SET_PDEATHSIG")
	b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_PDEATHSIG), imm(uintptr(unix.SIGKILL)))
	// The parent may have died before the signal was set: its end of the
	// lifeline is closed then.
	pfd := make([]byte, 8)
	binary.NativeEndian.PutUint32(pfd, launch.SpecFD)
	binary.NativeEndian.PutUint16(pfd[4:], unix.POLLIN)
	_, r := b.sysTo(unix.SYS_PPOLL, b.data("pollfd lifeline", pfd), imm(1), b.data("timespec 0", make([]byte, 16)), imm(0))
	hup := b.add(Op{Code: opJumpReg, Args: [6]Arg{reg(r)}})
	return []int{gone, hup}
}

// defaultSignals gives every signal its default action and drops the
// alternate signal stack: an init that shares the caller's memory must
// never run the caller's runtime's handlers (on the caller's thread's
// signal stack, with its g). Every signal stays blocked but for faults.
func (b *builder) defaultSignals() {
	b.begin("default signal actions")
	act := b.scratch("sigaction SIG_DFL", 32)
	for sig := 1; sig <= 64; sig++ {
		if sig == int(unix.SIGKILL) || sig == int(unix.SIGSTOP) {
			continue
		}
		b.ok(b.sys(unix.SYS_RT_SIGACTION, immInt(sig), act, imm(0), imm(8)), syscall.EINVAL)
	}
	ss := make([]byte, 24)
	binary.NativeEndian.PutUint32(ss[8:], 2) // SS_DISABLE
	b.sys(unix.SYS_SIGALTSTACK, b.data("stack_t disabled", ss), imm(0))
}

// move is one step of placing descriptors: dup3 from onto to, or close
// from (to < 0).
type move struct{ from, to int }

// placeFiles is the sequence that puts files[i] at i, as
// syscall.forkAndExecInChild does: a descriptor that a lower number's
// placement would overwrite is moved above all of them first.
func placeFiles(files []int) []move {
	fd := append([]int(nil), files...)
	next := len(fd)
	for _, f := range fd {
		if f >= next {
			next = f + 1
		}
	}
	var out []move
	for i := range fd {
		if fd[i] >= 0 && fd[i] < i {
			out = append(out, move{fd[i], next})
			fd[i] = next
			next++
		}
	}
	for i := range fd {
		switch {
		case fd[i] < 0:
			out = append(out, move{i, -1})
		case fd[i] != i:
			out = append(out, move{fd[i], i})
		}
	}
	return out
}

func (b *builder) loopback() {
	b.begin("lo up")
	_, s := b.sysTo(unix.SYS_SOCKET, imm(unix.AF_INET), imm(unix.SOCK_DGRAM|unix.SOCK_CLOEXEC), imm(0))
	ifr := make([]byte, 40)
	copy(ifr, "lo")
	binary.NativeEndian.PutUint16(ifr[unix.IFNAMSIZ:], unix.IFF_UP|unix.IFF_LOOPBACK|unix.IFF_RUNNING)
	b.sys(unix.SYS_IOCTL, reg(s), imm(unix.SIOCSIFFLAGS), b.data("ifreq lo up", ifr))
	b.sys(unix.SYS_CLOSE, reg(s))
}

const (
	statSize = int(unsafe.Sizeof(unix.Stat_t{}))
	offDev   = int(unsafe.Offsetof(unix.Stat_t{}.Dev))
	offIno   = int(unsafe.Offsetof(unix.Stat_t{}.Ino))
	offMode  = int(unsafe.Offsetof(unix.Stat_t{}.Mode))
)

// openHow is a struct open_how for openat2, one buffer for each (the
// kernel only reads it).
func (b *builder) openHow(flags, resolve uint64) Arg {
	if a, ok := b.hows[[2]uint64{flags, resolve}]; ok {
		return a
	}
	h := make([]byte, 24)
	binary.NativeEndian.PutUint64(h, flags)
	binary.NativeEndian.PutUint64(h[16:], resolve)
	a := b.data(fmt.Sprintf("how{%#x,%#x}", flags, resolve), h)
	b.hows[[2]uint64{flags, resolve}] = a
	return a
}

// openNoSymlinks opens p (absolute) O_PATH without following a symlink,
// as mounts.OpenNoSymlinks does; under dir (a register) with inRoot. It
// returns the ops that fail with ENOENT where p is missing (for a caller
// that skips it) and the register of the descriptor.
func (b *builder) openNoSymlinks(dir Arg, p string, inRoot, link bool) ([]int, int) {
	name := p
	if inRoot {
		name = strings.TrimPrefix(p, "/")
		if name == "" {
			name = "."
		}
	}
	if b.walk {
		return b.walkNoSymlinks(dir, name, link)
	}
	flags := uint64(unix.O_PATH | unix.O_CLOEXEC)
	if link {
		flags |= unix.O_NOFOLLOW
	}
	resolve := uint64(unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS)
	if inRoot {
		resolve |= unix.RESOLVE_IN_ROOT
	}
	i, r := b.sysTo(unix.SYS_OPENAT2, dir, b.str(name), b.openHow(flags, resolve), imm(24))
	return []int{i}, r
}

// walkNoSymlinks is openNoSymlinks one component at a time, as mounts'
// walkNoSymlinks does where openat2 is refused with ENOSYS (in a nested
// sandbox, whose filter cannot read openat2's arguments): each component
// opened O_PATH|O_NOFOLLOW and checked not to be a symlink (ELOOP), but
// the last one with link; ".." is refused (EXDEV).
func (b *builder) walkNoSymlinks(dir Arg, name string, link bool) ([]int, int) {
	start := "."
	if strings.HasPrefix(name, "/") {
		dir, start = immInt(unix.AT_FDCWD), "/"
	}
	_, cur := b.sysTo(unix.SYS_OPENAT, dir, b.str(start), imm(unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY), imm(0))
	var parts []string
	for _, c := range strings.Split(name, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	var opens []int
	for i, c := range parts {
		if c == ".." {
			// Never in a plan (its paths are clean): fail as mounts does.
			b.add(Op{Code: opCmp, Eq: true, Args: [6]Arg{b.stat(), imm(0), imm(0), imm(4), imm(uintptr(syscall.EXDEV))}})
			return opens, cur
		}
		j, next := b.sysTo(unix.SYS_OPENAT, reg(cur), b.str(c), imm(unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW), imm(0))
		opens = append(opens, j)
		b.close(cur)
		if !(link && i == len(parts)-1) {
			st := b.stat()
			b.sys(unix.SYS_FSTAT, reg(next), st)
			b.add(Op{Code: opCmp, Eq: true, Args: [6]Arg{st.withOff(offMode), imm(unix.S_IFMT), imm(unix.S_IFLNK), imm(4), imm(uintptr(syscall.ELOOP))}})
		}
		cur = next
	}
	return opens, cur
}

// skip has ops jump to the next op added on errno e (an optional path).
func (b *builder) skip(ops []int, e syscall.Errno) {
	for _, i := range ops {
		b.p.Ops[i].Skip = errnum(e)
	}
}

// landHere sets the target of ops to the next op added.
func (b *builder) landHere(ops []int) {
	for _, i := range ops {
		b.p.Ops[i].To = b.label()
	}
}

// checkID fails with ESTALE unless the descriptor in register fd is the
// inode id names.
func (b *builder) checkID(fd int, id mounts.Identity) {
	if id == (mounts.Identity{}) {
		return
	}
	st := b.stat()
	b.sys(unix.SYS_FSTAT, reg(fd), st)
	b.add(Op{Code: opCmp, Args: [6]Arg{st.withOff(offDev), imm(^uintptr(0)), imm(uintptr(id.Dev)), imm(8), imm(uintptr(syscall.ESTALE))}})
	b.add(Op{Code: opCmp, Args: [6]Arg{st.withOff(offIno), imm(^uintptr(0)), imm(uintptr(id.Ino)), imm(8), imm(uintptr(syscall.ESTALE))}})
}

func (b *builder) stat() Arg {
	if b.statBuf == nil {
		a := b.scratch("stat", statSize)
		b.statBuf = &a
	}
	return *b.statBuf
}

// mountAttr is a struct mount_attr setting set, one buffer for each set
// (the kernel only reads it).
func (b *builder) mountAttr(set uint64) Arg {
	if a, ok := b.attrs[set]; ok {
		return a
	}
	d := make([]byte, 32)
	binary.NativeEndian.PutUint64(d, set)
	a := b.data(fmt.Sprintf("attr{%#x}", set), d)
	b.attrs[set] = a
	return a
}

// setattr gives the mount in register fd the attributes set.
func (b *builder) setattr(fd int, set uint64, recursive bool) {
	flags := uintptr(unix.AT_EMPTY_PATH)
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	b.sys(unix.SYS_MOUNT_SETATTR, reg(fd), b.str(""), imm(flags), b.mountAttr(set), imm(32))
}

// moveTo attaches the detached mount in register fd onto the directory
// in register target (name "") or onto name inside it.
func (b *builder) moveTo(fd, target int, name string) {
	flags := uintptr(unix.MOVE_MOUNT_F_EMPTY_PATH)
	if name == "" {
		flags |= unix.MOVE_MOUNT_T_EMPTY_PATH
	}
	b.sys(unix.SYS_MOVE_MOUNT, reg(fd), b.str(""), reg(target), b.str(name), imm(flags))
}

func (b *builder) close(r int) { b.sys(unix.SYS_CLOSE, reg(r)) }

// newFS makes a detached mount of a fresh fstype with options, as
// mounts' newFS does, in a new register.
func (b *builder) newFS(fstype string, options [][2]string, attr uint64) int {
	_, fs := b.sysTo(unix.SYS_FSOPEN, b.str(fstype), imm(unix.FSOPEN_CLOEXEC))
	b.sys(unix.SYS_FSCONFIG, reg(fs), imm(unix.FSCONFIG_SET_STRING), b.str("source"), b.str(fstype), imm(0))
	for _, o := range options {
		b.sys(unix.SYS_FSCONFIG, reg(fs), imm(unix.FSCONFIG_SET_STRING), b.str(o[0]), b.str(o[1]), imm(0))
	}
	b.sys(unix.SYS_FSCONFIG, reg(fs), imm(unix.FSCONFIG_CMD_CREATE), imm(0), imm(0), imm(0))
	_, mnt := b.sysTo(unix.SYS_FSMOUNT, reg(fs), imm(unix.FSMOUNT_CLOEXEC), imm(uintptr(attr)))
	b.close(fs)
	return mnt
}

// mounts builds the plan's view and pivots into it, as mounts.Build does
// for the kinds Supports accepts.
func (b *builder) mounts(p *mounts.Plan) {
	b.begin("make / rprivate")
	b.sys(unix.SYS_MOUNT, b.str(""), b.str("/"), b.str(""), imm(unix.MS_PRIVATE|unix.MS_REC), b.str(""))
	root := p.Root
	b.begin("bind %s on /", root.Source)
	tree := b.cloneSource(root)
	b.sys(unix.SYS_MOVE_MOUNT, reg(tree), b.str(""), immInt(unix.AT_FDCWD), b.str("/"), imm(unix.MOVE_MOUNT_F_EMPTY_PATH))
	b.coverReveals(tree, root)
	b.root = tree
	b.files = newScratchFiles(p)
	for _, op := range p.Ops {
		b.apply(op)
	}
	b.begin("pivot_root")
	b.sys(unix.SYS_FCHDIR, reg(tree))
	b.sys(unix.SYS_PIVOT_ROOT, b.str("."), b.str("."))
	b.sys(unix.SYS_UMOUNT2, b.str("."), imm(unix.MNT_DETACH))
	b.sys(unix.SYS_CHDIR, b.str("/"))
	b.close(tree)
	b.closeScratch()
}

// cloneSource opens op.Source, checks it, and clones its tree with the
// op's attributes, in a new register.
func (b *builder) cloneSource(op mounts.Op) int {
	_, src := b.openNoSymlinks(immInt(unix.AT_FDCWD), op.Source, false, false)
	b.checkID(src, op.ID)
	_, tree := b.sysTo(unix.SYS_OPEN_TREE, reg(src), b.str(""),
		imm(unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE))
	attr := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
	if op.ReadOnly {
		attr |= unix.MOUNT_ATTR_RDONLY
	}
	b.setattr(tree, attr, true)
	b.close(src)
	return tree
}

func (b *builder) apply(op mounts.Op) {
	b.begin("mount point %s", op.Path)
	b.p.Explain[b.step] = explainMountPoint
	opens, target := b.openNoSymlinks(reg(b.root), op.Path, true, false)
	if op.Optional {
		b.skip(opens, syscall.ENOENT)
	}
	switch op.Kind {
	case mounts.OpBind:
		b.begin("bind %s on %s", op.Source, op.Path)
		b.p.Explain[b.step] = explainSource
		tree := b.cloneSource(op)
		b.moveTo(tree, target, "")
		b.coverReveals(tree, op)
		b.close(tree)
		if op.ID != (mounts.Identity{}) {
			b.begin("reopen %s after mounting", op.Path)
			_, m := b.openNoSymlinks(reg(b.root), op.Path, true, false)
			b.checkID(m, op.ID)
			b.close(m)
		}
	case mounts.OpTmpfs:
		b.begin("tmpfs on %s", op.Path)
		opts := [][2]string{{"mode", "755"}}
		if op.Size > 0 {
			opts = append(opts, [2]string{"size", fmt.Sprint(op.Size)})
		}
		mnt := b.newFS("tmpfs", opts, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
		for _, mp := range op.Mountpoints {
			b.mountpoint(mnt, mp)
		}
		if op.Mode != 0o755 {
			_, d := b.sysTo(unix.SYS_OPENAT, reg(mnt), b.str("."), imm(unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC), imm(0))
			b.sys(unix.SYS_FCHMOD, reg(d), imm(uintptr(op.Mode)))
			b.close(d)
		}
		if op.ReadOnly {
			b.setattr(mnt, unix.MOUNT_ATTR_RDONLY, false)
		}
		b.moveTo(mnt, target, "")
		b.close(mnt)
	case mounts.OpDev:
		b.dev(op, target)
	case mounts.OpEmptyFile:
		b.emptyFile(op, target)
	case mounts.OpFile:
		b.file(op, target)
	case mounts.OpProc:
		b.begin("mount proc on %s", op.Path)
		b.p.Explain[b.step] = "proc"
		var options [][2]string
		if b.vm {
			options = [][2]string{{"hidepid", "ptraceable"}} // sharedPid1
		}
		proc := b.newFS("proc", options, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		b.moveTo(proc, target, "")
		if op.ReadOnly {
			for _, name := range procReadOnly {
				b.begin("read-only bind %s/%s", op.Path, name)
				j, t := b.sysTo(unix.SYS_OPEN_TREE, reg(proc), b.str(name), imm(unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE))
				b.p.Ops[j].Skip = errnum(syscall.ENOENT)
				b.setattr(t, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, true)
				b.moveTo(t, proc, name)
				b.close(t)
				b.p.Ops[j].To = b.label()
			}
		}
		b.close(proc)
	case mounts.OpSys:
		b.begin("mount sysfs on %s", op.Path)
		b.p.Explain[b.step] = "sys"
		sys := b.newFS("sysfs", nil, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		b.moveTo(sys, target, "")
		b.close(sys)
	}
	b.close(target)
	if op.Optional {
		b.landHere(opens)
	}
}

// coverReveals mounts an empty read-only tmpfs on each of op.Covers in
// the tree in register tree, as mounts' coverReveals does.
func (b *builder) coverReveals(tree int, op mounts.Op) {
	for _, c := range op.Covers {
		b.begin("cover %s", path.Join(op.Path, c))
		opens, target := b.openNoSymlinks(reg(tree), c, true, false)
		b.skip(opens, syscall.ENOENT)
		mnt := b.newFS("tmpfs", [][2]string{{"mode", "555"}, {"size", "4k"}},
			unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		b.moveTo(mnt, target, "")
		b.close(mnt)
		b.close(target)
		b.landHere(opens)
	}
}

// procReadOnly are mounts' procfs entries that change the host.
var procReadOnly = []string{"sys", "sysrq-trigger", "irq", "bus"}

// devLinks are the links of mounts' /dev.
var devLinks = [][2]string{
	{"ptmx", "pts/ptmx"},
	{"fd", "/proc/self/fd"},
	{"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"},
}

// mountpoint makes mp (a file or a directory, its parents directories)
// in the fresh filesystem in register dir.
func (b *builder) mountpoint(dir int, mp mounts.Mountpoint) {
	parts := strings.Split(mp.Rel, "/")
	for i := 1; i < len(parts); i++ {
		b.ok(b.sys(unix.SYS_MKDIRAT, reg(dir), b.str(strings.Join(parts[:i], "/")), imm(0o755)), syscall.EEXIST)
	}
	if mp.Dir {
		b.ok(b.sys(unix.SYS_MKDIRAT, reg(dir), b.str(mp.Rel), imm(0o755)), syscall.EEXIST)
		return
	}
	i, f := b.sysTo(unix.SYS_OPENAT, reg(dir), b.str(mp.Rel), imm(unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC), imm(0o444))
	b.ok(i, syscall.EEXIST)
	b.ok(b.sys(unix.SYS_CLOSE, reg(f)), syscall.EBADF)
}

// dev builds /dev as mounts' mountDev does.
func (b *builder) dev(op mounts.Op, target int) {
	b.begin("bind the device nodes")
	var nodes []int
	var names []string
	for _, p := range mounts.DevicePaths() {
		_, n := b.sysTo(unix.SYS_OPEN_TREE, immInt(unix.AT_FDCWD), b.str(p), imm(unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC))
		st := b.stat()
		b.sys(unix.SYS_FSTAT, reg(n), st)
		b.add(Op{Code: opCmp, Args: [6]Arg{st.withOff(offMode), imm(unix.S_IFMT), imm(unix.S_IFCHR), imm(4), imm(uintptr(syscall.ENODEV))}})
		b.setattr(n, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, false)
		nodes, names = append(nodes, n), append(names, path.Base(p))
	}
	b.begin("tmpfs on %s", op.Path)
	dev := b.newFS("tmpfs", [][2]string{{"mode", "0755"}, {"size", "64k"}}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
	for _, name := range names {
		b.mountpoint(dev, mounts.Mountpoint{Rel: name})
	}
	b.mountpoint(dev, mounts.Mountpoint{Rel: "pts", Dir: true})
	b.mountpoint(dev, mounts.Mountpoint{Rel: "shm", Dir: true})
	for _, l := range devLinks {
		b.sys(unix.SYS_SYMLINKAT, b.str(l[1]), reg(dev), b.str(l[0]))
	}
	for _, mp := range op.Mountpoints {
		b.mountpoint(dev, mp)
	}
	b.moveTo(dev, target, "")
	for i, n := range nodes {
		b.moveTo(n, dev, names[i])
		b.close(n)
	}
	b.begin("devpts on %s/pts", op.Path)
	pts := b.newFS("devpts", [][2]string{{"ptmxmode", "0666"}, {"mode", "0620"}}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
	b.moveTo(pts, dev, "pts")
	b.close(pts)
	b.begin("tmpfs on %s/shm", op.Path)
	opts := [][2]string{{"mode", "1777"}}
	if op.Size > 0 {
		opts = append(opts, [2]string{"size", fmt.Sprint(op.Size)})
	}
	shm := b.newFS("tmpfs", opts, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	b.moveTo(shm, dev, "shm")
	b.close(shm)
	b.begin("mount_setattr ro on %s", op.Path)
	b.setattr(dev, unix.MOUNT_ATTR_RDONLY, false)
	b.close(dev)
}

// landlock builds and enforces rs as landlock.Apply does.
func (b *builder) landlock(rs landlock.Ruleset) {
	b.begin("landlock_create_ruleset %s / %s / %s", rs.Handled.FS, rs.Handled.Net, rs.Handled.Scope)
	attr := make([]byte, 24)
	binary.NativeEndian.PutUint64(attr, uint64(rs.Handled.FS))
	binary.NativeEndian.PutUint64(attr[8:], uint64(rs.Handled.Net))
	binary.NativeEndian.PutUint64(attr[16:], uint64(rs.Handled.Scope))
	size := 8
	switch {
	case rs.Handled.Scope != 0:
		size = 24
	case rs.Handled.Net != 0:
		size = 16
	}
	_, fd := b.sysTo(unix.SYS_LANDLOCK_CREATE_RULESET, b.data("ruleset attr", attr), immInt(size), imm(0))
	for _, r := range rs.Paths {
		access := r.Access & rs.Handled.FS
		if !r.Dir {
			access &= landlock.FileRights
		}
		if access == 0 {
			continue
		}
		b.begin("landlock rule on %s", r.Path)
		b.p.Explain[b.step] = explainRule
		opens, p := b.openNoSymlinks(immInt(unix.AT_FDCWD), r.Path, false, true)
		b.skip(opens, syscall.ENOENT) // gone since: nothing to grant
		// Past the open, each call's failure is worded as landlock.Apply
		// words it; the checks stay the rule's.
		rule := b.step
		st := b.stat()
		b.again(explainRuleStat)
		b.sys(unix.SYS_FSTAT, reg(p), st)
		b.step = rule
		if r.ID != (landlock.Identity{}) {
			b.add(Op{Code: opCmp, Args: [6]Arg{st.withOff(offDev), imm(^uintptr(0)), imm(uintptr(r.ID.Dev)), imm(8), imm(uintptr(syscall.ESTALE))}})
			b.add(Op{Code: opCmp, Args: [6]Arg{st.withOff(offIno), imm(^uintptr(0)), imm(uintptr(r.ID.Ino)), imm(8), imm(uintptr(syscall.ESTALE))}})
		}
		// A symlink gets no rule; what is not a directory gets only the
		// rights of a file.
		link := b.add(Op{Code: opCmp, Eq: true, Args: [6]Arg{st.withOff(offMode), imm(unix.S_IFMT), imm(unix.S_IFLNK), imm(4)}})
		dirRule := b.pathBeneath(access)
		fileRule := b.pathBeneath(access & landlock.FileRights)
		isDir := b.add(Op{Code: opCmp, Eq: true, Args: [6]Arg{st.withOff(offMode), imm(unix.S_IFMT), imm(unix.S_IFDIR), imm(4)}})
		b.add(Op{Code: opStore32, Args: [6]Arg{reg(p), fileRule.withOff(8)}})
		b.again(explainRuleAdd)
		b.sys(unix.SYS_LANDLOCK_ADD_RULE, reg(fd), imm(unix.LANDLOCK_RULE_PATH_BENEATH), fileRule, imm(0))
		b.step = rule
		toEnd := b.add(Op{Code: opJump})
		b.p.Ops[isDir].To = b.label()
		b.add(Op{Code: opStore32, Args: [6]Arg{reg(p), dirRule.withOff(8)}})
		b.again(explainRuleAdd)
		b.sys(unix.SYS_LANDLOCK_ADD_RULE, reg(fd), imm(unix.LANDLOCK_RULE_PATH_BENEATH), dirRule, imm(0))
		b.step = rule
		b.p.Ops[toEnd].To = b.label()
		b.p.Ops[link].To = b.label()
		b.close(p)
		b.landHere(opens)
	}
	for _, r := range rs.Ports {
		if r.Access&rs.Handled.Net == 0 {
			continue
		}
		b.begin("landlock_add_rule port %d %s", r.Port, r.Access)
		a := make([]byte, 16)
		binary.NativeEndian.PutUint64(a, uint64(r.Access&rs.Handled.Net))
		binary.NativeEndian.PutUint64(a[8:], uint64(r.Port))
		b.sys(unix.SYS_LANDLOCK_ADD_RULE, reg(fd), imm(2) /* LANDLOCK_RULE_NET_PORT */, b.data(fmt.Sprintf("port %d", r.Port), a), imm(0))
	}
	b.begin("prctl PR_SET_NO_NEW_PRIVS")
	b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_NO_NEW_PRIVS), imm(1))
	b.begin("landlock_restrict_self")
	b.sys(unix.SYS_LANDLOCK_RESTRICT_SELF, reg(fd), imm(0))
	b.close(fd)
}

// pathBeneath is a struct landlock_path_beneath_attr (packed: the
// descriptor at 8 is stored before the call).
func (b *builder) pathBeneath(access landlock.FS) Arg {
	a := make([]byte, 16)
	binary.NativeEndian.PutUint64(a, uint64(access))
	return b.data(fmt.Sprintf("beneath{%#x}", uint64(access)), a)
}

// noRootBits are ns' securebits: uid 0 means no capabilities, locked.
const noRootBits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7

// dropPrivileges is ns.DropPrivileges; an init that shares the caller's
// memory keeps keptCap in its permitted set, and must empty the bounding
// set for its payload not to keep it past its exec (sharedPid1).
func (b *builder) dropPrivileges(capLast int, keep bool) {
	b.begin("prctl PR_SET_NO_NEW_PRIVS")
	b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_NO_NEW_PRIVS), imm(1))
	b.begin("capget")
	hdr := make([]byte, 8)
	binary.NativeEndian.PutUint32(hdr, unix.LINUX_CAPABILITY_VERSION_3)
	h := b.data("cap header", hdr)
	data := b.scratch("cap data", 24)
	b.sys(unix.SYS_CAPGET, h, data)
	// Without CAP_SETPCAP the bounding set and securebits stay.
	noSetpcap := -1
	if !keep {
		noSetpcap = b.add(Op{Code: opCmp, Eq: true, Args: [6]Arg{data, imm(1 << unix.CAP_SETPCAP), imm(0), imm(4)}})
	}
	for c := 0; c <= capLast; c++ {
		b.begin("prctl PR_CAPBSET_DROP %d", c)
		b.ok(b.sys(unix.SYS_PRCTL, imm(unix.PR_CAPBSET_DROP), immInt(c)), syscall.EINVAL)
	}
	b.begin("prctl PR_SET_SECUREBITS")
	b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_SECUREBITS), imm(noRootBits))
	if noSetpcap >= 0 {
		b.p.Ops[noSetpcap].To = b.label()
	}
	b.begin("prctl PR_CAP_AMBIENT_CLEAR_ALL")
	b.sys(unix.SYS_PRCTL, imm(unix.PR_CAP_AMBIENT), imm(unix.PR_CAP_AMBIENT_CLEAR_ALL), imm(0), imm(0), imm(0))
	if keep {
		b.begin("capset to %s alone, permitted", keptCapName)
		b.sys(unix.SYS_CAPSET, h, b.data("cap kept", keptCapData()))
		return
	}
	b.begin("capset to empty")
	b.sys(unix.SYS_CAPSET, h, b.scratch("cap zero", 24))
}

// seccomp loads filter i as seccomp.Load does.
func (b *builder) seccomp(i int, prog seccomp.Program) {
	if len(prog) == 0 {
		return
	}
	// Named as package seccomp names it for the Go init: the failure's
	// message is the same whichever init met it.
	b.begin("seccomp SECCOMP_SET_MODE_FILTER")
	b.sys(unix.SYS_SECCOMP, imm(unix.SECCOMP_SET_MODE_FILTER), imm(0), b.filter(i, prog))
}

// filter is a struct sock_fprog for prog, named i.
func (b *builder) filter(i int, prog []seccomp.Instruction) Arg {
	code := make([]byte, 8*len(prog))
	for j, in := range prog {
		binary.NativeEndian.PutUint16(code[8*j:], in.Code)
		code[8*j+2], code[8*j+3] = in.Jt, in.Jf
		binary.NativeEndian.PutUint32(code[8*j+4:], in.K)
	}
	f := b.data(fmt.Sprintf("bpf%d", i), code)
	fprog := make([]byte, 16)
	binary.NativeEndian.PutUint16(fprog, uint16(len(prog)))
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: fprog, Name: fmt.Sprintf("fprog%d", i), Fixups: []Fixup{{Off: 8, Buf: int(f.V)}}})
	return buf(len(b.p.Bufs) - 1)
}

// payload clones the payload, which execs the command, and supervises it
// as pid 1, serving the socket factory fac (descriptor, buffer; -1: none).
func (b *builder) payload(spec *launch.Spec, fac [2]Arg) {
	b.begin("signalfd")
	var mask uint64
	for _, s := range append([]syscall.Signal{unix.SIGCHLD}, forwarded()...) {
		mask |= 1 << (uint(s) - 1)
	}
	m := make([]byte, 8)
	binary.NativeEndian.PutUint64(m, mask)
	_, sfd := b.sysTo(unix.SYS_SIGNALFD4, imm(^uintptr(0)), b.data("sigset", m), imm(8), imm(unix.SFD_CLOEXEC))
	b.begin("epoll_create1")
	_, ep := b.sysTo(unix.SYS_EPOLL_CREATE1, imm(unix.EPOLL_CLOEXEC))
	b.begin("pipe2")
	fds := b.scratch("pipe fds", 8)
	b.sys(unix.SYS_PIPE2, fds, imm(unix.O_CLOEXEC))
	rd, wr := b.newReg(), b.newReg()
	b.add(Op{Code: opLoad32, Args: [6]Arg{fds}, Dst: rd})
	b.add(Op{Code: opLoad32, Args: [6]Arg{fds.withOff(4)}, Dst: wr})
	b.begin("clone the payload")
	pidfd := b.scratch("pidfd", 8)
	// clone, not clone3: a seccomp profile may refuse clone3 (ENOSYS, for
	// libcs to fall back), and the filters are loaded by now. With
	// CLONE_PIDFD the pidfd goes where parent_tid points, the third
	// argument on every architecture.
	var pid, parent int
	if b.vfork {
		// CLONE_VM|CLONE_VFORK on a stack of its own: no copy of the
		// init's address space (the caller's), which grows with it.
		pid = b.newReg()
		vf := b.add(Op{Code: opVfork, Args: [6]Arg{imm(unix.CLONE_PIDFD | unix.CLONE_VM | unix.CLONE_VFORK | uintptr(unix.SIGCHLD)), pidfd}, Dst: pid})
		parent = b.add(Op{Code: opJump})
		b.p.Ops[vf].To = b.label()
	} else {
		_, pid = b.sysTo(unix.SYS_CLONE, imm(unix.CLONE_PIDFD|uintptr(unix.SIGCHLD)), imm(0), pidfd, imm(0), imm(0))
		parent = b.add(Op{Code: opJumpReg, Args: [6]Arg{reg(pid)}})
	}
	// The payload.
	b.add(Op{Code: opPayload, Args: [6]Arg{reg(wr)}})
	if n := b.nofile; n != nil {
		b.begin("restore the soft RLIMIT_NOFILE %d", n[0])
		lim := make([]byte, 16)
		binary.NativeEndian.PutUint64(lim, n[0])
		binary.NativeEndian.PutUint64(lim[8:], n[1])
		b.sys(unix.SYS_PRLIMIT64, imm(0), imm(unix.RLIMIT_NOFILE), b.data("nofile", lim), imm(0))
	}
	argv, envp := b.table("argv", spec.Args), b.table("envp", spec.Env)
	b.execSearch(spec, argv, envp)
	// pid 1.
	b.p.Ops[parent].To = b.label()
	b.close(wr)
	b.add(Op{Code: opExecWait, Args: [6]Arg{reg(rd)}})
	b.close(rd)
	pfd := b.newReg()
	b.add(Op{Code: opLoad32, Args: [6]Arg{pidfd}, Dst: pfd})
	b.add(Op{Code: opStarted, Args: [6]Arg{reg(pid), reg(pfd)}})
	b.note("payload started")
	b.add(Op{Code: opSupervise, Args: [6]Arg{reg(pid), reg(sfd), fac[0], fac[1], reg(ep)}})
}

// execSearch finds and executes the command as the Go init's lookPath
// and exec do (and os/exec's LookPath): a name with a slash is checked
// and executed, any failure final; a name without one is looked for in
// each directory of PATH in turn: where it cannot be stat'ed (missing, or
// in a directory this user cannot search) the search goes on; a
// directory, or a file this user may not execute, is remembered (the
// first) and the search goes on; the first executable one is executed,
// and a failure of that exec is final. Only when nothing executable was
// found does a remembered denial end the search (126), else "not found"
// (127). Each candidate is a step named by its path, so that a denial
// reads as the Go init's does ("/dir/name: permission denied").
func (b *builder) execSearch(spec *launch.Spec, argv, envp Arg) {
	name := spec.Args[0]
	b.begin("exec %s", name)
	execStep := b.step
	b.p.ExecStep = execStep
	search := !strings.Contains(name, "/")
	for _, c := range candidates(name, spec.Env) {
		b.begin("%s", c)
		var s uintptr
		if search {
			s = 1
		}
		b.add(Op{Code: opExec, Args: [6]Arg{b.str(c), argv, envp, b.stat(), imm(s), immInt(execStep)}})
	}
	if search {
		b.p.Path = searchPath(spec.Env)
		b.begin("search PATH for %s", name)
		b.p.SearchStep = b.step
	}
	b.add(Op{Code: opExecEnd})
}

func forwarded() []syscall.Signal {
	var out []syscall.Signal
	for _, s := range launch.Forwarded {
		out = append(out, s.(syscall.Signal))
	}
	return out
}

// candidates are the paths name is tried at, in order, as execvp tries
// them: name itself if it has a slash, else each directory of the
// payload's PATH (the Go init's default without one).
func candidates(name string, env []string) []string {
	if strings.Contains(name, "/") {
		return []string{name}
	}
	var out []string
	for _, dir := range strings.Split(searchPath(env), ":") {
		if dir == "" {
			dir = "."
		}
		out = append(out, path.Join(dir, name))
	}
	return out
}

// hideArgs overwrites the init's copy of the caller's argv with
// launch.InitStage and its environment with zeros, in one
// process_vm_writev of its own memory.
func (b *builder) hideArgs(args, environ Area) {
	b.begin("hide the caller's arguments")
	_, self := b.sysTo(unix.SYS_GETPID)
	fill := func(a Area, content string) (local, remote []byte, fix int) {
		d := make([]byte, a.Len)
		copy(d, content)
		if len(d) > 0 {
			d[len(d)-1] = 0
		}
		b.p.Bufs = append(b.p.Bufs, Buffer{Data: d, Name: fmt.Sprintf("fill%d", len(b.p.Bufs))})
		l, r := make([]byte, 16), make([]byte, 16)
		binary.NativeEndian.PutUint64(l[8:], uint64(a.Len))
		binary.NativeEndian.PutUint64(r, uint64(a.Start))
		binary.NativeEndian.PutUint64(r[8:], uint64(a.Len))
		return l, r, len(b.p.Bufs) - 1
	}
	al, ar, af := fill(args, launch.InitStage)
	el, er, ef := fill(environ, "")
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: append(al, el...), Name: "local iovecs", Fixups: []Fixup{{Off: 0, Buf: af}, {Off: 16, Buf: ef}}})
	local := buf(len(b.p.Bufs) - 1)
	remote := b.data("remote iovecs", append(ar, er...))
	b.sys(unix.SYS_PROCESS_VM_WRITEV, reg(self), local, imm(2), remote, imm(2), imm(0))
}

// searchPath is the payload's PATH, or the Go init's default without one.
func searchPath(env []string) string {
	p := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			p = v
		}
	}
	return p
}

// rlimits sets each limit with prlimit64 on this process, one step each,
// named as the Go init's Setrlimit failure is explained.
func (b *builder) rlimits(rs []launch.Rlimit) {
	for _, r := range rs {
		b.begin("rlimit %s=%d:%d", r.Name, r.Soft, r.Hard)
		b.p.Explain[b.step], b.p.Rlimits[b.step] = "rlimit", r
		lim := make([]byte, 16)
		binary.NativeEndian.PutUint64(lim, r.Soft)
		binary.NativeEndian.PutUint64(lim[8:], r.Hard)
		b.sys(unix.SYS_PRLIMIT64, imm(0), immInt(rlimits[r.Name]), b.data("rlimit "+r.Name, lim), imm(0))
	}
}
