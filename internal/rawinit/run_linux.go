package rawinit

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
)

// The runtime's fork hooks, which syscall.forkAndExecInChild1 calls and
// the runtime pushes to package syscall for packages such as gVisor (go
// doc runtime: "Do not remove or change the type signature", issue
// 67401): BeforeFork blocks signals and poisons the stack guard, so that
// any attempt of the child to grow its stack dies loudly; AfterFork undoes
// it in the parent; AfterForkInChild resets the signal handlers and
// restores the mask before an exec.
//
//go:linkname runtime_BeforeFork syscall.runtime_BeforeFork
func runtime_BeforeFork()

//go:linkname runtime_AfterFork syscall.runtime_AfterFork
func runtime_AfterFork()

//go:linkname runtime_AfterForkInChild syscall.runtime_AfterForkInChild
func runtime_AfterForkInChild()

// lop is a linked op: buffers resolved to addresses, registers marked.
type lop struct {
	a       [6]uintptr
	dst     int32
	to      int32
	step    int32
	nr      uint16
	ok0     errnum
	ok1     errnum
	skip    errnum
	regMask uint8
	code    opCode
	eq      bool
}

// record is what the init writes on the status pipe; Decode turns it into
// a launch.Msg.
//
// A log record's UserUS is its CLOCK_MONOTONIC time in nanoseconds.
type record struct {
	Kind   uint32
	Step   uint32
	Errno  uint32
	Code   uint32
	Signal uint32
	Pid    uint32
	Pidfd  uint32
	_      uint32
	UserUS int64
	SysUS  int64
	MaxRSS int64
}

const recordSize = int(unsafe.Sizeof(record{}))

const (
	recError = iota + 1
	recStarted
	recExit
	recLog
)

type pollfd struct {
	fd      int32
	events  int16
	revents int16
}

// machine is the linked program and every byte the child writes: the
// child lives on a copy of it and never allocates.
type machine struct {
	ops       []lop
	regs      []uintptr
	arena     []uint64
	mem       []byte // arena, by byte
	inPayload bool
	failFD    uintptr
	rec       record
	execErr   [2]uint32 // errno, step: from the payload on its exec pipe
	denied    [2]uint32 // errno, step: the first denial of a PATH search
	pfd       [3]pollfd
	events    [3]unix.EpollEvent // pid 1's wait; Fd holds the index into pfd
	facErr    [2]uint32          // errno, where: why the socket factory ended
	ctl       [8]byte
	siginfo   [128]byte
	stack     [16 << 10]byte // the vforked payload's, until its exec
	initStack []byte         // the init's own, when cloned with CLONE_VM
	ru        unix.Rusage
	now       unix.Timespec // a log record's time
	ws        uint32
}

// link lays the buffers out in one arena and resolves the ops.
func link(p *Program) *machine {
	offs := make([]int, len(p.Bufs))
	size := 0
	for i, b := range p.Bufs {
		offs[i] = size
		n := max(len(b.Data), b.Size)
		if b.Ptrs != nil {
			n = 8 * (len(b.Ptrs) + 1)
		}
		size += (n + 7) &^ 7
	}
	m := &machine{arena: make([]uint64, size/8+1), regs: make([]uintptr, p.Regs+1)}
	base := uintptr(unsafe.Pointer(&m.arena[0]))
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&m.arena[0])), len(m.arena)*8)
	m.mem = mem
	for i, b := range p.Bufs {
		copy(mem[offs[i]:], b.Data)
		for j, q := range b.Ptrs {
			*(*uintptr)(unsafe.Pointer(&mem[offs[i]+8*j])) = base + uintptr(offs[q])
		}
		for _, f := range b.Fixups {
			*(*uintptr)(unsafe.Pointer(&mem[offs[i]+f.Off])) = base + uintptr(offs[f.Buf]+f.At)
		}
	}
	m.ops = make([]lop, len(p.Ops))
	for i, op := range p.Ops {
		l := lop{code: op.Code, nr: uint16(op.Nr), dst: int32(op.Dst), to: int32(op.To), step: int32(op.Step), eq: op.Eq,
			ok0: op.OK[0], ok1: op.OK[1], skip: op.Skip}
		for j, a := range op.Args {
			switch a.Kind {
			case argImm:
				l.a[j] = a.V
			case argReg:
				l.a[j] = a.V
				l.regMask |= 1 << j
			case argBuf:
				l.a[j] = base + uintptr(offs[a.V]) + uintptr(a.Off)
				if op.Code != opSys && op.Code != opVfork && (op.Code != opExec || j > 2) {
					// The runner's own loads and stores index mem.
					l.a[j] -= base
				}
			}
		}
		m.ops[i] = l
	}
	return m
}

// The child's code: every function below runs in the cloned child,
// without the runtime, and must be nosplit and norace.

//go:nosplit
//go:norace
func (m *machine) run() { m.runAt(0) }

// initMain is where the init cloned with CLONE_VM starts, on its own
// stack (runAt never returns; cloneVM exits if it did).
//
//lint:ignore U1000 called by cloneVM (vfork_linux_amd64.s)
//go:nosplit
//go:norace
func initMain(m *machine) { m.runAt(0) }

// payloadMain is where the vforked payload starts, on its own stack, at
// op pc.
//
//lint:ignore U1000 called by vforkPayload (vfork_linux_amd64.s)
//go:nosplit
//go:norace
func payloadMain(m *machine, pc uintptr) {
	m.runPayload(int(pc))
	exit(launch.ExitNotFound)
}

// runPayload is runAt for the payload's ops (opPayload, system calls
// without registers, opExit): a loop of its own, so that the linker's
// nosplit check sees no cycle through vforkPayload.
//
//go:nosplit
//go:norace
func (m *machine) runPayload(pc int) {
	for pc < len(m.ops) {
		op := &m.ops[pc]
		pc++
		switch op.code {
		case opPayload:
			runtime_AfterForkInChild()
			m.inPayload, m.failFD = true, m.regs[op.a[0]]
		case opSys:
			_, _, e := syscall.RawSyscall6(uintptr(op.nr), op.a[0], op.a[1], op.a[2], op.a[3], op.a[4], op.a[5])
			if e != 0 && uintptr(e) != uintptr(op.ok0) && uintptr(e) != uintptr(op.ok1) {
				m.fail(op.step, uintptr(e))
			}
		case opExit:
			exit(op.a[0])
		case opExec:
			m.exec(&op.a, op.step)
		case opExecEnd:
			m.execEnd(op.step)
		default:
			m.fail(op.step, uintptr(unix.EINVAL))
		}
	}
}

//go:nosplit
//go:norace
func (m *machine) runAt(pc int) {
	for pc < len(m.ops) {
		op := &m.ops[pc]
		pc++
		var a [6]uintptr
		for i := 0; i < 6; i++ {
			a[i] = op.a[i]
			if op.regMask&(1<<i) != 0 {
				a[i] = m.regs[op.a[i]]
			}
		}
		switch op.code {
		case opSys:
			r, _, e := syscall.RawSyscall6(uintptr(op.nr), a[0], a[1], a[2], a[3], a[4], a[5])
			if e != 0 {
				switch uintptr(e) {
				case uintptr(op.ok0), uintptr(op.ok1):
					r = ^uintptr(0)
				case uintptr(op.skip):
					pc = int(op.to)
					continue
				default:
					m.fail(op.step, uintptr(e))
				}
			}
			if op.dst >= 0 {
				m.regs[op.dst] = r
			}
		case opCmp:
			var v uintptr
			if a[3] == 4 {
				v = uintptr(*(*uint32)(unsafe.Pointer(&m.mem[a[0]])))
			} else {
				v = *(*uintptr)(unsafe.Pointer(&m.mem[a[0]]))
			}
			if (v&a[1] == a[2]) == op.eq {
				if op.to < 0 {
					m.fail(op.step, a[4])
				}
				pc = int(op.to)
			}
		case opJumpReg:
			if (a[0] == 0) == op.eq {
				pc = int(op.to)
			}
		case opJump:
			pc = int(op.to)
		case opStore32:
			*(*int32)(unsafe.Pointer(&m.mem[a[1]])) = int32(a[0])
		case opVfork:
			top := uintptr(unsafe.Pointer(&m.stack[len(m.stack)-64])) &^ 15
			pid, e := vforkPayload(a[0], top, a[1], m, uintptr(op.to))
			// The payload ran on this memory until its exec: it is the
			// init's again.
			m.inPayload = false
			if e != 0 {
				m.fail(op.step, e)
			}
			m.regs[op.dst] = pid
		case opLoad32:
			m.regs[op.dst] = uintptr(*(*int32)(unsafe.Pointer(&m.mem[a[0]])))
		case opExit:
			exit(a[0])
		case opPayload:
			runtime_AfterForkInChild()
			m.inPayload, m.failFD = true, a[0]
		case opExecWait:
			m.execWait(a[0])
		case opExec:
			m.exec(&a, op.step)
		case opExecEnd:
			m.execEnd(op.step)
		case opStarted:
			m.rec = record{Kind: recStarted, Pid: uint32(a[0]), Pidfd: uint32(a[1])}
			m.send()
		case opSupervise:
			m.supervise(a[0], a[1], a[2], a[3], a[4])
		case opServe:
			m.serve(&a, op.step)
		case opAddAddr:
			m.addAddr(&a, op.step)
		case opNote:
			m.note(1, op.step, 0, a[0] == 0)
		}
	}
	exit(launch.ExitSetup)
}

// atFDCWD is AT_FDCWD (-100) as a system call's argument.
const atFDCWD = ^uintptr(99)

// exec is opExec, the Go init's lookPath and checkExecutable for one
// candidate, then its execve: it returns only for a PATH search to go on.
//
//go:nosplit
//go:norace
func (m *machine) exec(a *[6]uintptr, step int32) {
	search := a[4] != 0
	_, _, e := syscall.RawSyscall6(unix.SYS_NEWFSTATAT, atFDCWD, a[0], uintptr(unsafe.Pointer(&m.mem[a[3]])), 0, 0, 0)
	if e != 0 {
		if search {
			return // missing, or in a directory this user cannot search
		}
		m.fail(step, uintptr(e))
	}
	e = 0
	if *(*uint32)(unsafe.Pointer(&m.mem[a[3]+uintptr(offMode)]))&unix.S_IFMT == unix.S_IFDIR {
		e = unix.EISDIR
	} else if _, _, e2 := syscall.RawSyscall(unix.SYS_FACCESSAT, atFDCWD, a[0], unix.X_OK); e2 != 0 {
		e = e2
	}
	if e != 0 {
		if !search {
			m.fail(step, uintptr(e))
		}
		if m.denied[0] == 0 {
			m.denied[0], m.denied[1] = uint32(e), uint32(step)
		}
		return
	}
	_, _, e = syscall.RawSyscall(unix.SYS_EXECVE, a[0], a[1], a[2])
	m.fail(int32(a[5]), uintptr(e))
}

// execEnd is opExecEnd: a search that found nothing executable fails
// with its first denial, else as not found.
//
//go:nosplit
//go:norace
func (m *machine) execEnd(step int32) {
	if m.denied[0] != 0 {
		m.fail(int32(m.denied[1]), uintptr(m.denied[0]))
	}
	m.fail(step, uintptr(unix.ENOENT))
}

//go:nosplit
//go:norace
func exit(code uintptr) {
	for {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, code, 0, 0)
	}
}

// fail reports step's errno and ends the process: the init on the status
// pipe, the payload on its exec pipe.
//
//go:nosplit
//go:norace
func (m *machine) fail(step int32, errno uintptr) {
	if m.inPayload {
		m.execErr[0], m.execErr[1] = uint32(errno), uint32(step)
		syscall.RawSyscall(unix.SYS_WRITE, m.failFD, uintptr(unsafe.Pointer(&m.execErr[0])), 8)
		exit(launch.ExitNotFound)
	}
	code := uint32(launch.ExitSetup)
	m.rec = record{Kind: recError, Step: uint32(step), Errno: uint32(errno), Code: code}
	m.send()
	exit(uintptr(code))
}

//go:nosplit
//go:norace
func (m *machine) send() {
	for {
		_, _, e := syscall.RawSyscall(unix.SYS_WRITE, launch.StatusFD, uintptr(unsafe.Pointer(&m.rec)), uintptr(recordSize))
		if e != unix.EINTR {
			return
		}
	}
}

// execWait reads the payload's exec pipe: end of file once it executed,
// else its errno and step, which end the init as the payload's failure.
//
//go:nosplit
//go:norace
func (m *machine) execWait(fd uintptr) {
	for {
		n, _, e := syscall.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&m.execErr[0])), 8)
		if e == unix.EINTR {
			continue
		}
		if e != 0 || n == 0 {
			return
		}
		errno := m.execErr[0]
		// As the Go init's execCode: only a missing file is "not found".
		code := uint32(launch.ExitNotExecutable)
		if errno == uint32(unix.ENOENT) {
			code = launch.ExitNotFound
		}
		m.rec = record{Kind: recError, Step: m.execErr[1], Errno: errno, Code: code}
		m.send()
		exit(uintptr(code))
	}
}

// supervise is pid 1 once the payload runs: it passes signals on to the
// payload, reaps every child, and once the payload has ended (and the
// parent knows its pid: launch.CtlStarted) kills the rest, reports and
// exits with the payload's status. The parent's end of the lifeline going
// away, or launch.CtlKill, ends the sandbox. It serves the socket factory
// on fac (-1: none), its buffer at facBuf, until that ends.
//
//go:nosplit
//go:norace
func (m *machine) supervise(pid, sfd, fac, facBuf, ep uintptr) {
	known, pending := false, false
	m.pfd[0] = pollfd{fd: int32(sfd), events: unix.POLLIN}
	m.pfd[1] = pollfd{fd: launch.SpecFD, events: unix.POLLIN}
	m.pfd[2] = pollfd{fd: int32(fac), events: unix.POLLIN} // a negative one is passed over
	// epoll, made before the payload existed: ppoll refuses more
	// descriptors than RLIMIT_NOFILE, which the payload, with pid 1's
	// user ids, may lower (prlimit --pid 1), and epoll_pwait has no such
	// check.
	for i := 0; i < 3; i++ {
		if m.pfd[i].fd < 0 {
			continue
		}
		m.events[i] = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}
		_, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_CTL, ep, unix.EPOLL_CTL_ADD, uintptr(m.pfd[i].fd), uintptr(unsafe.Pointer(&m.events[i])), 0, 0)
		if e != 0 {
			m.endAll(pid)
			exit(launch.ExitSetup)
		}
	}
	for {
		m.pfd[0].revents, m.pfd[1].revents, m.pfd[2].revents = 0, 0, 0
		n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, ep, uintptr(unsafe.Pointer(&m.events[0])), 3, ^uintptr(0), 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			m.endAll(pid)
			exit(launch.ExitSetup)
		}
		for i := uintptr(0); i < n && i < 3; i++ {
			if j := m.events[i].Fd; j >= 0 && j < 3 {
				m.pfd[j].revents = int16(m.events[i].Events)
			}
		}
		if m.pfd[1].revents != 0 {
			n, _, e := syscall.RawSyscall(unix.SYS_READ, launch.SpecFD, uintptr(unsafe.Pointer(&m.ctl[0])), 1)
			switch {
			case e == unix.EINTR:
			case e != 0 || n == 0:
				m.endAll(pid) // the parent is gone
				exit(launch.ExitSetup)
			case m.ctl[0] == launch.CtlStarted:
				known = true
				if pending {
					m.reap(pid)
				}
			case m.ctl[0] == launch.CtlKill:
				if !m.endAll(pid) {
					m.ws = uint32(unix.SIGKILL)
				}
				m.report()
			}
		}
		if m.pfd[2].revents != 0 && m.serveOne(fac, facBuf) == facEnded {
			syscall.RawSyscall6(unix.SYS_EPOLL_CTL, ep, unix.EPOLL_CTL_DEL, fac, 0, 0, 0)
			syscall.RawSyscall(unix.SYS_CLOSE, fac, 0, 0)
			m.pfd[2].fd = -1
		}
		if m.pfd[0].revents != 0 {
			n, _, e := syscall.RawSyscall(unix.SYS_READ, sfd, uintptr(unsafe.Pointer(&m.siginfo[0])), 128)
			if e != 0 || n < 128 {
				continue
			}
			sig := *(*uint32)(unsafe.Pointer(&m.siginfo[0]))
			switch {
			case sig != uint32(unix.SIGCHLD):
				syscall.RawSyscall(unix.SYS_KILL, pid, uintptr(sig), 0)
			case !known:
				pending = true
			default:
				m.reap(pid)
			}
		}
	}
}

// reap collects every child that has ended; if the payload has, it ends
// the rest and reports.
//
//go:nosplit
//go:norace
func (m *machine) reap(pid uintptr) {
	for {
		var ws uint32
		got, _, e := syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&ws)), unix.WNOHANG|unix.WALL, 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 || got == 0 {
			return
		}
		if got == pid && ws&0x7f != 0x7f { // exited or killed, not stopped
			m.ws = ws
			m.endAll(pid)
			m.report()
		}
	}
}

// endAll kills every other process of the PID namespace and reaps them
// all, reporting whether the payload was among them (its status in
// m.ws).
//
//go:nosplit
//go:norace
func (m *machine) endAll(pid uintptr) bool {
	flags := uintptr(unix.WALL)
	if _, _, e := syscall.RawSyscall(unix.SYS_KILL, ^uintptr(0), uintptr(unix.SIGKILL), 0); e != 0 && e != unix.ESRCH {
		flags |= unix.WNOHANG
	}
	reaped := false
	for {
		var ws uint32
		got, _, e := syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&ws)), flags, 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 || got == 0 {
			return reaped
		}
		if got == pid {
			m.ws, reaped = ws, true
		}
	}
}

// report sends how the payload ended, with what every process reaped
// used, and exits with its status.
//
//go:nosplit
//go:norace
func (m *machine) report() {
	ws := m.ws
	m.rec = record{Kind: recExit, Code: (ws >> 8) & 0xff}
	if sig := ws & 0x7f; sig != 0 {
		m.rec.Signal, m.rec.Code = sig, 128+sig
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_GETRUSAGE, ^uintptr(0) /* RUSAGE_CHILDREN */, uintptr(unsafe.Pointer(&m.ru)), 0); e == 0 {
		m.rec.UserUS = int64(m.ru.Utime.Sec)*1e6 + int64(m.ru.Utime.Usec)
		m.rec.SysUS = int64(m.ru.Stime.Sec)*1e6 + int64(m.ru.Stime.Usec)
		m.rec.MaxRSS = int64(m.ru.Maxrss)
	}
	m.send()
	exit(uintptr(m.rec.Code))
}
