package rawinit

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/reexec"
)

// The Landlock-only stage is registered here, with the runtime-free child
// (launch cannot import this package, which builds on it).
func init() {
	reexec.Register(launch.LandlockStage, func() int { return launch.RunLandlockStage(landlockChildren{}) })
}

// ChildInput is what CompileLandlockChild needs besides the spec.
type ChildInput struct {
	Spec *launch.Spec
	// Conn is the child's end of the connection to the stage, a number
	// above every one the ExtraFiles take (3 to 3+len-1).
	Conn int
	// StagePid is the stage's pid: a child whose parent is another has
	// lost it before its parent-death signal was set.
	StagePid int
	CapLast  int
	Walk     bool
	Nofile   *[2]uint64
}

// ChildProgram is the Landlock-only child's program, with what the stage
// needs to word its failures as the Go child does.
type ChildProgram struct {
	*Program
	execPath  map[int]string // the execve step of each candidate: its path
	candidate map[int]bool   // a candidate's stat and access checks
}

// SupportsLandlockChild says why spec needs the Go child, or nil.
func SupportsLandlockChild(spec *launch.Spec) error {
	switch {
	case spec.Landlock == nil || spec.Supervisor == nil:
		return unsupported("a spec without a Landlock ruleset and supervisor")
	case len(spec.Supervisor.Filter) == 0:
		return unsupported("a supervisor without a filter")
	case spec.TTY != nil:
		return unsupported("a pseudo-terminal")
	case len(spec.Args) == 0:
		return unsupported("an empty command")
	}
	for _, r := range spec.Rlimits {
		if _, ok := rlimits[r.Name]; !ok {
			return unsupported("rlimit " + r.Name)
		}
	}
	return nil
}

// CompileLandlockChild is launch.RunLandlockChild as a program, in its
// order: the runtime's fork hooks (signal handlers reset, mask
// restored), its own process group and parent-death signal (as the stage
// forked the Go child), everything else close-on-exec, the rlimits, the
// Landlock ruleset, no capabilities, the filter that notifies the stage
// (killable where the kernel can) and the profile's, the listener sent to
// the stage and closed, the working directory, the ExtraFiles at 3, 4,
// ..., the soft RLIMIT_NOFILE restored as Go's exec does, and the
// command's PATH search and exec. A failure is written to the connection
// as its errno and step (launch's rawRecord).
func CompileLandlockChild(in ChildInput) (*ChildProgram, error) {
	spec := in.Spec
	if err := SupportsLandlockChild(spec); err != nil {
		return nil, err
	}
	b := newBuilder()
	b.walk = in.Walk
	cp := &ChildProgram{Program: b.p, execPath: map[int]string{}, candidate: map[int]bool{}}
	b.begin("start the Landlock-only child")
	b.add(Op{Code: opPayload, Args: [6]Arg{immInt(in.Conn)}})
	b.sys(unix.SYS_SETPGID, imm(0), imm(0))
	b.sys(unix.SYS_PRCTL, imm(unix.PR_SET_PDEATHSIG), imm(uintptr(unix.SIGKILL)))
	b.begin("the parent is gone")
	_, ppid := b.sysTo(unix.SYS_GETPPID)
	word := b.scratch("ppid", 8)
	b.add(Op{Code: opStore32, Args: [6]Arg{reg(ppid), word}})
	b.add(Op{Code: opCmp, Args: [6]Arg{word, imm(0xffffffff), immInt(in.StagePid), imm(4), imm(uintptr(syscall.ESRCH))}})
	b.takeFiles(spec.ExtraFiles, in.Conn)
	b.rlimits(spec.Rlimits)
	if spec.Landlock.Handled != (landlock.Request{}) {
		b.landlock(*spec.Landlock)
	}
	b.dropPrivileges(in.CapLast, false)
	// The notifying filter first, as the Go child loads it; killable
	// where the kernel knows the flag (EINVAL before 5.19). Each way
	// then loads the profile and sends the listener, saying which.
	listener := b.newReg()
	b.begin("seccomp SECCOMP_SET_MODE_FILTER")
	fprog := b.filter(len(spec.Seccomp), spec.Supervisor.Filter)
	killable := b.sys(unix.SYS_SECCOMP, imm(unix.SECCOMP_SET_MODE_FILTER),
		imm(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV), fprog)
	b.p.Ops[killable].Dst, b.p.Ops[killable].Skip = listener, errnum(syscall.EINVAL)
	b.sendListener(spec, in.Conn, listener, true)
	toChdir := b.add(Op{Code: opJump})
	b.p.Ops[killable].To = b.label()
	b.begin("seccomp SECCOMP_SET_MODE_FILTER")
	plain := b.sys(unix.SYS_SECCOMP, imm(unix.SECCOMP_SET_MODE_FILTER), imm(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER), fprog)
	b.p.Ops[plain].Dst = listener
	b.sendListener(spec, in.Conn, listener, false)
	b.p.Ops[toChdir].To = b.label()
	b.begin("chdir %s inside the sandbox", spec.Dir)
	b.sys(unix.SYS_CHDIR, b.str(spec.Dir))
	b.placeExtraFiles(spec.ExtraFiles)
	if n := in.Nofile; n != nil {
		b.begin("restore the soft RLIMIT_NOFILE %d", n[0])
		lim := make([]byte, 16)
		binary.NativeEndian.PutUint64(lim, n[0])
		binary.NativeEndian.PutUint64(lim[8:], n[1])
		b.sys(unix.SYS_PRLIMIT64, imm(0), imm(unix.RLIMIT_NOFILE), b.data("nofile", lim), imm(0))
	}
	cp.execSearch(b, spec)
	return cp, nil
}

// sendListener loads the profile's filters, then sends the listener in
// register r to the stage (SCM_RIGHTS, with a record of errno 0 that says
// whether it waits killable) and closes it: the payload could answer its
// own calls with it.
func (b *builder) sendListener(spec *launch.Spec, conn, r int, killable bool) {
	for i, p := range spec.Seccomp {
		b.seccomp(i, p)
	}
	b.begin("send the listener to the supervisor")
	rec := make([]byte, 8)
	if killable {
		binary.NativeEndian.PutUint32(rec[4:], 1)
	}
	recBuf := b.data(fmt.Sprintf("listener record %v", killable), rec)
	iov := make([]byte, 16)
	binary.NativeEndian.PutUint64(iov[8:], 8)
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: iov, Name: "iovec", Fixups: []Fixup{{Off: 0, Buf: int(recBuf.V)}}})
	iovBuf := len(b.p.Bufs) - 1
	cmsg := make([]byte, unix.CmsgSpace(4))
	binary.NativeEndian.PutUint64(cmsg, uint64(unix.CmsgLen(4)))
	binary.NativeEndian.PutUint32(cmsg[8:], unix.SOL_SOCKET)
	binary.NativeEndian.PutUint32(cmsg[12:], unix.SCM_RIGHTS)
	cmsgBuf := b.data(fmt.Sprintf("cmsg %v", killable), cmsg)
	hdr := make([]byte, 56) // struct msghdr
	binary.NativeEndian.PutUint64(hdr[24:], 1)
	binary.NativeEndian.PutUint64(hdr[40:], uint64(len(cmsg)))
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: hdr, Name: "msghdr", Fixups: []Fixup{{Off: 16, Buf: iovBuf}, {Off: 32, Buf: int(cmsgBuf.V)}}})
	hdrBuf := buf(len(b.p.Bufs) - 1)
	b.add(Op{Code: opStore32, Args: [6]Arg{reg(r), cmsgBuf.withOff(unix.CmsgLen(0))}})
	b.sys(unix.SYS_SENDMSG, immInt(conn), hdrBuf, imm(unix.MSG_NOSIGNAL))
	b.close(r)
}

// takeFiles keeps of the stage's descriptors what the Go child gets
// (its streams, the connection, the ExtraFiles), each but the streams
// close-on-exec, and closes the rest: a limit on descriptors (nofile)
// counts from the same numbers. The ExtraFiles go to 3, 4, ... already,
// through copies above every number involved so that no placement
// overwrites one still to come.
func (b *builder) takeFiles(extra []int, conn int) {
	b.begin("close_range")
	high := conn + 1
	for _, fd := range extra {
		high = max(high, fd+1)
	}
	for i, fd := range extra {
		if fd >= 0 {
			b.sys(unix.SYS_DUP3, immInt(fd), immInt(high+i), imm(unix.O_CLOEXEC))
		}
	}
	if conn > 3 {
		b.sys(unix.SYS_CLOSE_RANGE, imm(3), immInt(conn-1), imm(0))
	}
	if high > conn+1 {
		b.sys(unix.SYS_CLOSE_RANGE, immInt(conn+1), immInt(high-1), imm(0))
	}
	b.sys(unix.SYS_CLOSE_RANGE, immInt(high+len(extra)), imm(^uintptr(0)>>32), imm(0))
	for i, fd := range extra {
		if fd >= 0 {
			b.sys(unix.SYS_DUP3, immInt(high+i), immInt(3+i), imm(unix.O_CLOEXEC))
			b.sys(unix.SYS_CLOSE, immInt(high+i))
		}
	}
}

// placeExtraFiles has the ExtraFiles takeFiles placed survive the exec.
func (b *builder) placeExtraFiles(extra []int) {
	for i, fd := range extra {
		if fd >= 0 {
			b.begin("ExtraFiles[%d] as descriptor %d", i, 3+i)
			b.sys(unix.SYS_FCNTL, immInt(3+i), imm(unix.F_SETFD), imm(0))
		}
	}
}

// execSearch is the Go child's lookPath and exec: each candidate's
// checks a step named by its path, its execve a step of its own
// ("exec NAME"), which the stage explains by the path, as the Go child's
// execError does.
func (cp *ChildProgram) execSearch(b *builder, spec *launch.Spec) {
	name := spec.Args[0]
	argv, envp := b.table("argv", spec.Args), b.table("envp", spec.Env)
	search := uintptr(0)
	if !strings.Contains(name, "/") {
		search = 1
	}
	for _, c := range candidates(name, spec.Env) {
		b.begin("exec %s", name)
		execStep := b.step
		cp.execPath[execStep] = c
		b.p.ExecStep = execStep
		b.begin("%s", c)
		cp.candidate[b.step] = true
		b.add(Op{Code: opExec, Args: [6]Arg{b.str(c), argv, envp, b.stat(), imm(search), immInt(execStep)}})
	}
	if search != 0 {
		b.p.Path = searchPath(spec.Env)
		b.begin("search PATH for %s", name)
		b.p.SearchStep = b.step
	} else {
		b.p.SearchStep = -1
	}
	b.add(Op{Code: opExecEnd})
}

// Failure words the child's failure (errno at step) as the Go child does:
// its code and message, or the path of a refused execve.
func (cp *ChildProgram) Failure(args []string, errno, step uint32) (code int, msg, path string, exec bool) {
	s := int(step)
	if p, ok := cp.execPath[s]; ok {
		return 0, "", p, true
	}
	e := syscall.Errno(errno)
	code = launch.ExitSetup
	if cp.candidate[s] || s == cp.SearchStep {
		code = launch.ExitNotExecutable
		if e == syscall.ENOENT {
			code = launch.ExitNotFound
		}
	}
	if r, ok := cp.Rlimits[s]; ok {
		// launch.ApplyRlimits' wording.
		if e == syscall.EPERM {
			var cur unix.Rlimit
			_ = unix.Getrlimit(rlimits[r.Name], &cur)
			return code, fmt.Sprintf("rlimit %s=%d:%d: cannot raise the hard limit above %d: %v", r.Name, r.Soft, r.Hard, cur.Max, e), "", false
		}
		return code, fmt.Sprintf("rlimit %s: %v", r.Name, e), "", false
	}
	if s < len(cp.Steps) && cp.Explain[s] == explainRule {
		msg, _, _ := pathWords(explainRule, cp.Steps[s], e)
		return code, msg, "", false
	}
	rec := make([]byte, recordSize)
	binary.NativeEndian.PutUint32(rec, recError)
	binary.NativeEndian.PutUint32(rec[4:], step)
	binary.NativeEndian.PutUint32(rec[8:], errno)
	binary.NativeEndian.PutUint32(rec[12:], uint32(code))
	m := (&Init{prog: cp.Program, args: args}).Decode(rec)
	return code, m.Msg, "", false
}

// landlockChildren is launch.RawChildren.
type landlockChildren struct{}

func (landlockChildren) Supports(spec *launch.Spec) error { return SupportsLandlockChild(spec) }

// Start compiles the child for spec and clones it from the calling
// thread (its parent-death signal follows that thread).
func (landlockChildren) Start(spec *launch.Spec, conn int) (launch.RawChild, error) {
	capLast, err := readCapLast()
	if err != nil {
		return nil, err
	}
	// The connection above every number the ExtraFiles take.
	high, err := unix.FcntlInt(uintptr(conn), unix.F_DUPFD_CLOEXEC, 3+len(spec.ExtraFiles))
	if err != nil {
		return nil, fmt.Errorf("fcntl F_DUPFD_CLOEXEC: %w", err)
	}
	defer unix.Close(high)
	in := ChildInput{Spec: spec, Conn: high, StagePid: os.Getpid(), CapLast: capLast,
		Walk: walkPaths || !haveOpenat2(), Nofile: originalNofile(spec)}
	cp, err := CompileLandlockChild(in)
	if err != nil {
		return nil, err
	}
	m := link(cp.Program)
	pid, _, errno := forkInit(m, &cloneArgs{exitSignal: uint64(unix.SIGCHLD)}, true)
	if errno != 0 {
		return nil, os.NewSyscallError("clone3", errno)
	}
	return &landlockChild{pid: int(pid), prog: cp, args: spec.Args}, nil
}

type landlockChild struct {
	pid  int
	prog *ChildProgram
	args []string
}

func (c *landlockChild) Pid() int { return c.pid }

func (c *landlockChild) Failure(errno, step uint32) (int, string, string, bool) {
	return c.prog.Failure(c.args, errno, step)
}
