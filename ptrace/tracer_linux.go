package ptrace

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/procfs"
)

// Event is a call of a traced process that failed, or that the
// sandbox's filters refused (the tracer did not let it run).
type Event struct {
	Tid, Pid int    // the thread and its process, as the tracer sees them
	Call     string // the call's name on this architecture
	Args     [6]uint64
	Errno    unix.Errno
	Refused  bool     // by the sandbox's filters (Options.Refused)
	Paths    []string // the path arguments, absolute where they could be made so
	Addr     string   // a socket address (connect, bind, sendto)
	Flags    uint64   // open flags (open, openat), else 0
	FD       string   // what the descriptor a call acts on names (fchmod...)
}

// Options says what a Tracer reports, and to whom.
type Options struct {
	// Ignore is a process whose own calls are not reported (the init,
	// whose calls after its filters are loaded are nsrun's, not the
	// payload's); its children are.
	Ignore int
	// Name names a call by its number on this architecture, for the calls
	// a filter refuses (any call at all).
	Name func(nr uint64) (string, bool)
	// Refused says whether the sandbox's filters refuse call c untraced,
	// and with which errno. It decides every stop of a filter's trace
	// (SECCOMP_RET_TRACE), whatever value the trace carries: a filter the
	// payload loads can trace any call with any value. Nil: they refuse
	// nothing.
	Refused func(c Syscall) (unix.Errno, bool)
	// Report is given each event on the tracer's thread, while the thread
	// that made the call waits: it must be quick (Event.Process reads
	// /proc: only for what it keeps), and bound what it keeps.
	Report func(Event)
}

// Tracer follows a process and everything it starts.
//
// Between threads of one program, any wait for a process its tracer
// follows takes that process's ptrace stops too (the kernel shows a
// tracee's stops to its tracer's whole thread group), and a stop taken
// away from the tracer is never resumed: while it is traced, the process
// seized must be waited for through Ended, by no other wait.
type Tracer struct {
	ended chan Ended
}

// Ended is how the process seized ended, and what it used.
type Ended struct {
	Status unix.WaitStatus
	Rusage unix.Rusage
}

// seizeOptions: every new process and thread is traced from its first
// instruction, seccomp stops are reported, and every tracee is killed if
// the tracer goes away.
const seizeOptions = unix.PTRACE_O_TRACESECCOMP | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
	unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_EXITKILL

// Seize starts tracing process pid, every thread of it, on a thread of its
// own. Seize it before it loads a filter made of Calls, or forks a process
// that will: a filter's SECCOMP_RET_TRACE without a tracer fails the call
// with ENOSYS.
func Seize(pid int, o Options) (*Tracer, error) {
	t := &Tracer{ended: make(chan Ended, 1)}
	seized := make(chan error, 1)
	go func() {
		// Never unlocked: the thread is the tracer and dies with it.
		runtime.LockOSThread()
		end, err := seizeAll(pid)
		if err != nil {
			seized <- err
			return
		}
		seized <- nil
		if end != nil {
			t.ended <- *end // ended while it was seized, and reaped here
			return
		}
		l := newLoop(o)
		l.root, l.ended = pid, t.ended
		l.run()
	}()
	if err := <-seized; err != nil {
		return nil, err
	}
	return t, nil
}

// seizeAll seizes every thread of pid and leaves none untraced. Only a
// traced thread's children are traced from birth, and a thread that was
// cloning while it was seized may give one that is neither traced nor yet
// listed in /proc: a multi-threaded program (a Go stage) may later fork
// from it, and that child's traced calls would fail with ENOSYS. So each
// thread seized is also held in a stop until a pass over the threads finds
// no new one: a stopped thread clones nothing, and a clone under way ends,
// its thread listed, before the cloning thread stops. Then every thread
// goes on as it would have. A leader that ended meanwhile has been reaped
// here: its end is returned.
func seizeAll(pid int) (rootEnd *Ended, err error) {
	held := map[int]heldStop{}
	defer func() {
		for tid, h := range held {
			h.resume(tid)
		}
	}()
	self := unix.Gettid()
	done := map[int]bool{}
	for first := true; ; first = false {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			if rootEnd != nil {
				return rootEnd, nil
			}
			return nil, fmt.Errorf("list the threads of %d: %w", pid, err)
		}
		var tids []int
		if first {
			tids = append(tids, pid) // the leader first
		}
		for _, e := range ents {
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				tids = append(tids, tid)
			}
		}
		added := false
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			done[tid], added = true, true
			err := seize(tid)
			switch {
			case errors.Is(err, unix.ESRCH):
				continue // gone meanwhile
			case errors.Is(err, unix.EPERM):
				// Born of a traced thread (attached already, its
				// TracerPid shown a moment later), or exiting.
				switch unseizable(tid, self) {
				case threadEnding:
					continue // nothing left to trace
				case threadUnknown:
					return nil, err
				}
			case err != nil:
				return nil, err
			}
			h, stopped, end, err := hold(tid)
			switch {
			case err != nil:
				return nil, err
			case stopped:
				held[tid] = h
			case end != nil && tid == pid:
				rootEnd = end
			}
		}
		if !added {
			return rootEnd, nil
		}
	}
}

// heldStop is the stop a thread is held in, and how it goes on from it.
type heldStop struct {
	sig   unix.Signal // a signal it stopped to take, delivered as it goes on
	group bool        // a group-stop: it stays stopped, as untraced
}

func (h heldStop) resume(tid int) {
	if h.group {
		_ = ptrace(unix.PTRACE_LISTEN, tid, 0, 0)
		return
	}
	_ = ptrace(unix.PTRACE_CONT, tid, 0, uintptr(h.sig))
}

// hold stops the traced thread tid and waits until it is stopped. Any stop
// will do (PTRACE_INTERRUPT is satisfied by whichever comes first: a
// signal's, a clone's); what it was says how the thread goes on. A thread
// that ended is not stopped; end is how, where it was reaped here
// (__WNOTHREAD: only as its tracer, never as another thread's parent).
func hold(tid int) (h heldStop, stopped bool, end *Ended, err error) {
	if err := ptrace(unix.PTRACE_INTERRUPT, tid, 0, 0); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return h, false, nil, nil
		}
		return h, false, nil, fmt.Errorf("ptrace PTRACE_INTERRUPT %d: %w", tid, err)
	}
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		_, err := unix.Wait4(tid, &ws, unix.WALL|unix.WNOTHREAD, &ru)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return h, false, nil, nil
		case ws.Exited(), ws.Signaled():
			return h, false, &Ended{Status: ws, Rusage: ru}, nil
		case !ws.Stopped():
			continue
		}
		sig, event := ws.StopSignal(), int(ws)>>16
		switch {
		case event == unix.PTRACE_EVENT_STOP:
			h.group = stopSignal(sig)
		case sig == unix.SIGTRAP && event != 0:
			// fork, clone, exec: a new thread or process is traced
			// already and reports its own first stop.
		default:
			h.sig = sig // a signal on its way, delivered as it goes on
		}
		return h, true, nil, nil
	}
}

func seize(tid int) error {
	if _, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(tid), 0, seizeOptions, 0, 0); e != 0 {
		return fmt.Errorf("ptrace PTRACE_SEIZE %d: %w", tid, e)
	}
	return nil
}

// Why a thread could not be seized.
const (
	threadUnknown  = iota // neither below, within a tenth of a second
	threadAttached        // traced by this thread already: a clone of a traced one
	threadEnding          // gone or on its way out: it clones nothing more
)

// unseizable tells why thread tid could not be seized by thread self.
func unseizable(tid, self int) int {
	for i := 0; i < 100; i++ {
		st, err := procfs.ReadStatus(tid)
		if err != nil {
			return threadEnding
		}
		if n, _ := st.Int("TracerPid", false); n == self {
			return threadAttached
		}
		if state := st["State"]; len(state) > 0 && (state[0] == "Z" || state[0] == "X") {
			return threadEnding
		}
		time.Sleep(time.Millisecond) // a clone's tracer link shows a moment later
	}
	return threadUnknown
}

// Ended waits for the process seized to end and reaps it.
func (t *Tracer) Ended() Ended { return <-t.ended }

// Syscall is a call at its stop for a filter's trace, as the filter saw
// it (struct seccomp_data).
type Syscall struct {
	Arch uint32 // AUDIT_ARCH_*
	NR   uint64
	IP   uint64
	Args [6]uint64
}

// pendingCall is an observed call between its seccomp stop and its exit.
type pendingCall struct {
	nr   uint64
	args [6]uint64
}

type loop struct {
	o       Options
	pending map[int]pendingCall
	tgids   map[int]int // each thread's process, once looked up
	root    int
	ended   chan<- Ended
}

func newLoop(o Options) *loop {
	return &loop{o: o, pending: map[int]pendingCall{}, tgids: map[int]int{}}
}

// tgid is the process of thread tid (tid itself if /proc has no answer).
func (l *loop) tgid(tid int) int {
	if pid, ok := l.tgids[tid]; ok {
		return pid
	}
	pid, _ := procStatus(tid)
	if pid == 0 {
		pid = tid
	}
	l.tgids[tid] = pid
	return pid
}

// Process reads the process's id in its own PID namespace and its
// argv[0], while the thread is stopped at the call.
func (e *Event) Process() (nspid int, argv0 string) {
	_, nspid = procStatus(e.Tid)
	return nspid, argv0Of(e.Pid)
}

// run waits for the tracees' stops until none is left. __WNOTHREAD: the
// calling program's own children are not this thread's to reap; a tracee
// that is one of them is handed to its parent once the tracer has seen it
// end.
func (l *loop) run() {
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		tid, err := unix.Wait4(-1, &ws, unix.WALL|unix.WNOTHREAD, &ru)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return // ECHILD: no tracee left
		}
		if !ws.Stopped() {
			delete(l.pending, tid) // ended
			delete(l.tgids, tid)
			if tid == l.root {
				l.ended <- Ended{Status: ws, Rusage: ru}
			}
			continue
		}
		l.stopped(tid, ws)
	}
}

// The event numbers wait reports in a stop's status.
const (
	stopSyscall = unix.SIGTRAP | 0x80
	eventShift  = 8
)

// stopped handles one stop and lets the thread go on.
func (l *loop) stopped(tid int, ws unix.WaitStatus) {
	sig := ws.StopSignal()
	event := int(ws) >> 16
	switch {
	case sig == stopSyscall:
		l.exited(tid)
	case sig == unix.SIGTRAP && event == unix.PTRACE_EVENT_SECCOMP:
		l.entered(tid)
	case sig == unix.SIGTRAP && event == unix.PTRACE_EVENT_EXEC:
		// The thread that executed is the process's leader now; a call
		// another thread had under way is gone.
		if former, err := unix.PtraceGetEventMsg(tid); err == nil {
			delete(l.pending, int(former))
			delete(l.tgids, int(former))
		}
		delete(l.pending, tid)
		l.resume(tid, 0)
	case sig == unix.SIGTRAP && event != 0:
		// fork, vfork, clone: the new one is traced already and reports
		// its own first stop.
		l.resume(tid, 0)
	case event == unix.PTRACE_EVENT_STOP:
		if stopSignal(sig) {
			// A group-stop: the thread stays stopped, as it would
			// untraced, until a SIGCONT; its parent sees it stopped.
			_ = ptrace(unix.PTRACE_LISTEN, tid, 0, 0)
			return
		}
		l.resume(tid, 0) // a new tracee's first stop
	case stopSignal(sig) && l.o.Ignore != 0 && l.tgid(tid) == l.o.Ignore:
		// The kernel hands a tracer even the signals a PID namespace's
		// init ignores (from inside it, those it has no handler for):
		// a payload's SIGSTOP must not stop its init because it is traced.
		l.resume(tid, 0)
	default:
		// A signal on its way to the thread: delivered as it was.
		l.resume(tid, sig)
	}
}

func stopSignal(sig unix.Signal) bool {
	return sig == unix.SIGSTOP || sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// resume lets tid go on, to the exit of the call it is in if that is
// being observed.
func (l *loop) resume(tid int, sig unix.Signal) {
	req := unix.PTRACE_CONT
	if _, ok := l.pending[tid]; ok {
		req = unix.PTRACE_SYSCALL
	}
	_ = ptrace(req, tid, 0, uintptr(sig))
}

// entered is a seccomp stop: a call the sandbox's filters refuse, which
// the tracer refuses now, or an observed call about to run.
func (l *loop) entered(tid int) {
	var info syscallInfo
	if err := getSyscallInfo(tid, &info); err != nil || info.Op != syscallInfoSeccomp {
		// Without the call, the tracer cannot tell whether the sandbox
		// refuses it: it must not run.
		l.kill(tid)
		l.resume(tid, 0)
		return
	}
	c := Syscall{Arch: info.Arch, NR: info.nr(), IP: info.IP, Args: info.args()}
	if l.o.Refused != nil {
		if errno, refused := l.o.Refused(c); refused {
			l.skip(tid, errno)
			l.refused(tid, c, errno)
			l.resume(tid, 0)
			return
		}
	}
	if info.retData() != ObserveData || !observed(c) {
		// A trace of a filter the payload loaded: without a tracer, as
		// untraced, the call fails with ENOSYS.
		l.skip(tid, unix.ENOSYS)
		l.resume(tid, 0)
		return
	}
	l.pending[tid] = pendingCall{nr: c.NR, args: c.Args}
	l.resume(tid, 0)
}

// skip makes the call tid is stopped in fail with errno, not run. Where
// the registers cannot be set, the process is killed: a thread with a
// fatal signal pending leaves a seccomp stop without running its call.
func (l *loop) skip(tid int, errno unix.Errno) {
	if err := setSkip(tid, -int64(errno)); err != nil {
		l.kill(tid)
	}
}

// kill kills the process of thread tid (kill(2) of a thread's id reaches
// its whole process).
func (l *loop) kill(tid int) { _ = unix.Kill(tid, unix.SIGKILL) }

// exited is the exit of an observed call: a failure is reported.
func (l *loop) exited(tid int) {
	p, ok := l.pending[tid]
	delete(l.pending, tid)
	var info syscallInfo
	if ok && getSyscallInfo(tid, &info) == nil && info.Op == syscallInfoExit && info.isError() {
		if c := byNumber(p.nr); c != nil {
			l.report(tid, c, c.name, p.args, unix.Errno(-info.rval()), false)
		}
	}
	l.resume(tid, 0)
}

// refused reports a call the sandbox's filters refused.
func (l *loop) refused(tid int, c Syscall, errno unix.Errno) {
	name, ok := "", false
	if l.o.Name != nil {
		name, ok = l.o.Name(c.NR)
	}
	if !ok {
		name = fmt.Sprintf("syscall %d", c.NR)
	}
	ci := infoFor(name)
	if ci == nil {
		ci = &callInfo{name: name, fd: -1, addr: -1, flags: -1, nonZero: -1}
	}
	l.report(tid, ci, name, c.Args, errno, true)
}

// report describes a call and hands it on.
func (l *loop) report(tid int, c *callInfo, name string, args [6]uint64, errno unix.Errno, refused bool) {
	if l.o.Report == nil {
		return
	}
	pid := l.tgid(tid)
	if pid == l.o.Ignore {
		return
	}
	ev := Event{Tid: tid, Pid: pid, Call: name, Args: args, Errno: errno, Refused: refused}
	for _, pa := range c.paths {
		p, ok := readString(tid, args[pa.path])
		if !ok {
			continue
		}
		dirfd := int32(atFDCWD)
		if pa.dirfd >= 0 {
			dirfd = int32(args[pa.dirfd])
		}
		if j := joinPath(tid, dirfd, p); j != "" {
			p = j
		}
		ev.Paths = append(ev.Paths, p)
	}
	if c.flags >= 0 {
		ev.Flags = args[c.flags]
	}
	if c.fd >= 0 {
		ev.FD = dirOf(tid, int32(args[c.fd]))
	}
	if c.addr >= 0 {
		n := int(args[c.addr+1])
		if n > 128 {
			n = 128
		}
		if b, ok := readBytes(tid, args[c.addr], n); ok {
			ev.Addr = sockaddr(b)
		}
	}
	if name == "socket" || name == "socketpair" {
		ev.Addr = socketKind(args[0], args[1])
	}
	l.o.Report(ev)
}

func ptrace(req int, tid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// PTRACE_GET_SYSCALL_INFO and its ops.
const (
	ptraceGetSyscallInfo = 0x420e
	syscallInfoExit      = 2
	syscallInfoSeccomp   = 3
)

// syscallInfo is struct ptrace_syscall_info.
type syscallInfo struct {
	Op    uint8
	_     [3]uint8
	Arch  uint32
	IP    uint64
	SP    uint64
	Union [8]uint64 // entry/seccomp: nr, args[6], ret_data; exit: rval, is_error
}

func (s *syscallInfo) nr() uint64          { return s.Union[0] }
func (s *syscallInfo) args() (a [6]uint64) { copy(a[:], s.Union[1:7]); return a }
func (s *syscallInfo) retData() uint32     { return uint32(s.Union[7]) }
func (s *syscallInfo) rval() int64         { return int64(s.Union[0]) }
func (s *syscallInfo) isError() bool       { return uint8(s.Union[1]) != 0 }

func getSyscallInfo(tid int, s *syscallInfo) error {
	return ptrace(ptraceGetSyscallInfo, tid, unsafe.Sizeof(*s), uintptr(unsafe.Pointer(s)))
}
