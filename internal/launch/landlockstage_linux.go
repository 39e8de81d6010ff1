package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/supervise"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
	"github.com/nsrun/nsrun/seccomp"
)

// childConnFD is the Landlock-only child's socket to the supervisor stage:
// the spec in, childMsg frames out.
const childConnFD = 3

// pdeathSignal is the supervisor stage's parent-death signal: one nothing
// else sends it, and caught, so that the stage ends every process of the
// sandbox before it goes.
const pdeathSignal = unix.SIGPWR

// childMsg is what the Landlock-only child tells the supervisor stage.
type childMsg struct {
	Kind     string // MsgListener (the listener comes with it) or MsgError
	Code     int
	Msg      string
	Killable bool // the filter waits for answers without being interrupted
}

// RunLandlockStage is the supervisor of a Landlock-only sandbox. It stays
// outside the payload's Landlock domain, so the payload can neither signal
// nor trace it: it starts the child that becomes the payload, answers the
// calls the payload's filter hands it, passes signals and terminal control
// on, and when the payload exits, the timeout expires or nsrun dies, ends
// every process of the sandbox (it is their subreaper: orphans come to it)
// before it exits. With a terminal it is the pty's session leader, so the
// payload's process group is not orphaned and job control works. The child
// is raw's, without a Go runtime, where it supports the spec; else (or
// with StageGoChild) the Go child, RunLandlockChild.
func RunLandlockStage(raw RawChildren) int {
	sigs := make(chan os.Signal, 16)
	notified := make(chan struct{})
	go func() {
		signal.Notify(sigs, append([]os.Signal{unix.SIGCHLD, pdeathSignal}, Forwarded...)...)
		close(notified)
	}()
	status := os.NewFile(StatusFD, "status")
	fail := func(code int, err error) int {
		Send(status, Failure(code, err))
		return code
	}
	if err := unix.CloseRange(SpecFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail(ExitSetup, fmt.Errorf("close_range: %w", err))
	}
	// The spec pipe stays the lifeline after the spec (read by its number):
	// its File must not be collected, whose finalizer would close it.
	specFile := os.NewFile(SpecFD, "spec")
	defer runtime.KeepAlive(specFile)
	// The child boots while the spec comes: it needs none of it to start.
	// Under nsrun's tracer the spec comes first, which nsrun writes once
	// it has seized every thread of this process, still dumpable then (the
	// caller may trace it): the child must be traced from birth, since its
	// filter traces calls, and without a tracer they fail with ENOSYS. So
	// it does where nsrun moves this process into its cgroup: the child
	// must be forked there.
	// The raw child is compiled from the spec: it comes first too.
	traced := slices.Contains(os.Args[1:], StageTraced)
	goChild := slices.Contains(os.Args[1:], StageGoChild)
	specFirst := traced || !goChild || slices.Contains(os.Args[1:], StageMovedIn)
	var spec *Spec
	var specErr error
	if specFirst {
		spec, specErr = ReadSpec(specFile)
	}
	var why error
	switch {
	case goChild:
		why = errors.New("NSRUN_INIT=go")
	case specErr != nil:
		why = specErr
	case traced:
		// Its filter's traced calls need a tracer from its birth,
		// which the tracer gets from an exec'd child's start.
		why = errors.New("the tracer (--trace-denials) follows the Go child")
	default:
		why = raw.Supports(spec)
	}
	if why != nil {
		raw = nil
	}
	// Orphans of the sandbox come to this process, which the payload cannot
	// trace (it is outside its Landlock domain, and not dumpable).
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_CHILD_SUBREAPER: %w", err))
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_DUMPABLE: %w", err))
	}
	child, err := startLandlockChild(raw, spec)
	if err != nil {
		return fail(ExitSetup, err)
	}
	defer child.outer.Stop()
	if specFirst {
		err = specErr
	} else {
		spec, err = ReadSpec(specFile)
	}
	if err == nil && (spec.Landlock == nil || spec.Supervisor == nil) {
		err = errors.New("no Landlock ruleset for a Landlock-only sandbox")
	}
	var term *sandboxTTY
	if err == nil && spec.TTY != nil {
		term, err = stageTTY(spec.TTY)
	}
	// The parent-death signal is set once it is caught (its default action
	// would end this process, and not the sandbox); the lifeline closes
	// the race with a parent that died before.
	<-notified
	if err == nil {
		if perr := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(pdeathSignal), 0, 0, 0); perr != nil {
			err = fmt.Errorf("prctl PR_SET_PDEATHSIG: %w", perr)
		}
	}
	if err != nil || parentGone() {
		killSandbox(child.pid)
		if err == nil {
			return ExitSetup
		}
		return fail(ExitSetup, err)
	}
	step := stepLogger(spec.Verbose, status)
	if child.raw != nil {
		step("the raw child started (the default; NSRUN_INIT=go gives the Go child)")
	} else {
		step(fmt.Sprintf("the Go child: %v", why))
	}
	var refusals *supervise.Refusals
	if traced {
		refusals = supervise.NewRefusals()
	}
	sup, code, err := child.supervise(spec, refusals, step)
	if err != nil {
		killSandbox(child.pid)
		return fail(code, err)
	}
	defer sup.Stop()
	// The child has its own copies of the ExtraFiles now: a pipe's end
	// closes when the payload's does.
	CloseExtraFiles(spec.ExtraFiles)
	Send(status, Msg{Kind: MsgStarted, Pid: child.pid})
	step("payload started")
	atExit := func(m *Msg) {
		if refusals != nil {
			m.Refusals, m.RefusalsDropped = refusals.List()
		}
	}
	return supervisePayload(child.pid, term, status, sigs, killSandbox, atExit)
}

// stageTTY is the pty the stage leads the session of (nsrun made it its
// controlling terminal): the first of its streams that is the pty.
func stageTTY(spec *TTYSpec) (*sandboxTTY, error) {
	for i := 0; i < 3; i++ {
		if spec.Streams&(1<<i) != 0 {
			return &sandboxTTY{slave: os.NewFile(uintptr(i), "pty slave"), streams: spec.Streams, fg: spec.Foreground}, nil
		}
	}
	return nil, errors.New("the sandbox's terminal is none of its streams")
}

// killSandbox ends every process of the sandbox and reaps it, and returns
// how the payload pid ended if it was among them. As the sandbox's
// subreaper, this process is the parent of every process whose parent
// died; it kills its children, whose own children then come to it, until
// it has none. A child's pid cannot be reused before it is reaped here, so
// no signal can reach another process.
func killSandbox(payload int) (ws unix.WaitStatus, reaped bool) {
	for block := false; ; {
		flags := unix.WALL
		if !block {
			flags |= unix.WNOHANG
		}
		var w unix.WaitStatus
		got, err := unix.Wait4(-1, &w, flags, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return ws, reaped // ECHILD: nothing is left
		case got > 0:
			if got == payload {
				ws, reaped = w, true
			}
			block = false // reap what else has ended before looking again
			continue
		}
		// Children are alive (the common case is none, found without
		// reading /proc): kill them all, including those that came to
		// this process since the last look, then wait for one to go.
		for _, c := range ownChildren() {
			_ = unix.Kill(c, unix.SIGKILL)
		}
		block = true
	}
}

// ownChildren lists this process's children (without CONFIG_PROC_CHILDREN
// there is no list of them: /proc says each process's parent).
func ownChildren() []int {
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) >= 2 && f[1] == self {
			out = append(out, pid)
		}
	}
	return out
}

// landlockChild is the child the supervisor stage started, which becomes
// the payload.
type landlockChild struct {
	pid   int
	conn  *os.File
	outer *supervise.Thread // forked the child; connects abstract addresses
	raw   RawChild          // the runtime-free child; nil: the Go child
}

// outerRuleset is the Landlock domain of the stage's thread that starts the
// child, in which the payload's domain then nests: so the abstract sockets
// the payload makes can be connected from that thread and no others. Every
// layer denies refer (from ABI 2) unless a rule grants it, even one that
// handles no filesystem right: this one grants it everywhere, or no file
// could be moved across directories.
func outerRuleset(abi int) landlock.Ruleset {
	if abi < 6 {
		return landlock.Ruleset{} // no scopes: no layer is needed
	}
	return landlock.Ruleset{
		Handled: landlock.Request{FS: landlock.Refer, Scope: landlock.AbstractUnixSocket},
		Paths:   []landlock.PathRule{{Path: "/", Access: landlock.Refer, Dir: true, ID: LstatID("/")}},
	}
}

// startLandlockChild starts the child from a thread of its own, in the
// outer Landlock domain; the thread then drops its capabilities (the child
// keeps them until it has made its own ruleset, which may need them to
// reach the rule paths) and stays to connect abstract addresses. With raw
// the child is raw's, cloned for spec; else the Go child, re-executed.
func startLandlockChild(raw RawChildren, spec *Spec) (*landlockChild, error) {
	abi, _, err := landlock.ABI()
	if err != nil {
		return nil, err
	}
	outer := outerRuleset(abi)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	attr := &syscall.ProcAttr{
		Env: []string{},
		// The status pipe, for its steps (-v).
		Files: []uintptr{0, 1, 2, uintptr(fds[1]), StatusFD},
		// Its own process group, so that a kill(0) of the payload's stays
		// in the sandbox; it dies if this thread (this process) does.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	var pid int
	var rawChild RawChild
	thread, err := supervise.StartThread(func() error {
		if err := landlock.Apply(outer); err != nil {
			return err
		}
		if raw != nil {
			if rawChild, err = raw.Start(spec, fds[1]); err != nil {
				return fmt.Errorf("start the Landlock-only child: %w", err)
			}
			pid = rawChild.Pid()
		} else if pid, err = syscall.ForkExec(reexec.Self, []string{LandlockChildStage}, attr); err != nil {
			return fmt.Errorf("start the Landlock-only child: %w", err)
		}
		return ns.DropPrivileges()
	})
	unix.Close(fds[1])
	if err != nil {
		unix.Close(fds[0])
		if pid > 0 {
			killSandbox(pid)
		}
		return nil, err
	}
	return &landlockChild{pid: pid, conn: os.NewFile(uintptr(fds[0]), "child"), outer: thread, raw: rawChild}, nil
}

// supervise sends the child its spec, takes the listener of the filter it
// loads and starts answering it; it returns once the child has executed
// the payload, or with the child's error.
func (c *landlockChild) supervise(spec *Spec, refusals *supervise.Refusals, step func(string)) (*supervise.Supervisor, int, error) {
	defer c.conn.Close()
	var listener int
	var killable bool
	if c.raw != nil {
		// It has the spec compiled in, and the ExtraFiles inherited.
		var code int
		var err error
		if listener, killable, code, err = rawListener(spec, c.raw, int(c.conn.Fd())); err != nil {
			return nil, code, err
		}
		// The raw child sends its listener once its ruleset and every
		// filter are in force: the Go child's two steps, timed here.
		step("landlock applied")
		step("capabilities dropped, seccomp filters loaded")
	} else {
		var err error
		if listener, killable, err = c.goListener(spec); err != nil {
			var f *childFailure
			if errors.As(err, &f) {
				return nil, f.code, errors.New(f.msg)
			}
			return nil, ExitSetup, err
		}
	}
	cfg := supervise.Config{
		Listener: listener, KillableWait: killable, Goarch: runtime.GOARCH,
		Policy:   supervise.Policy{Rules: spec.Supervisor.Writable, Protected: spec.Supervisor.Protected},
		Landlock: spec.Landlock.Paths,
		Refusals: refusals,
		Worker:   ns.DropPrivileges,
		NetWorker: func() error {
			if err := ns.DropPrivileges(); err != nil {
				return err
			}
			return landlock.Apply(spec.Supervisor.Workers)
		},
	}
	if abi, _, err := landlock.ABI(); err == nil && abi >= 6 {
		cfg.Abstract = c.outer
	}
	if spec.Supervisor.Listen {
		allowed := PortAllowed(spec.Supervisor.AllowBind)
		cfg.Listen = func(sock, backlog int) unix.Errno { return ListenChecked(sock, backlog, allowed) }
	}
	sup, err := supervise.Start(cfg)
	if err != nil {
		unix.Close(listener)
		return nil, ExitSetup, err
	}
	// The connection closes as the child executes the payload; before
	// that, it may still say why it could not.
	if c.raw != nil {
		if code, err := rawExecuted(spec, c.raw, int(c.conn.Fd())); err != nil {
			sup.Stop()
			return nil, code, err
		}
		return sup, 0, nil
	}
	var m childMsg
	if err := ReadFrame(c.conn, &m, "child message"); err == nil {
		sup.Stop()
		return nil, m.Code, errors.New(m.Msg)
	} else if !errors.Is(err, io.EOF) {
		sup.Stop()
		return nil, ExitSetup, err
	}
	return sup, 0, nil
}

// childFailure is the Go child's own report of why it failed.
type childFailure struct {
	code int
	msg  string
}

func (f *childFailure) Error() string { return f.msg }

// goListener sends the Go child its spec and ExtraFiles and takes the
// listener of the filter it loads, or its failure (a *childFailure).
func (c *landlockChild) goListener(spec *Spec) (int, bool, error) {
	b, err := Frame(spec, "spec")
	if err != nil {
		return -1, false, err
	}
	if err := sendExtraFiles(int(c.conn.Fd()), spec.ExtraFiles); err != nil {
		return -1, false, err
	}
	if _, err := c.conn.Write(b); err != nil {
		return -1, false, fmt.Errorf("Send spec to the Landlock-only child: %w", err)
	}
	var m childMsg
	listener, err := readFrameWithFd(c.conn, &m)
	if err != nil {
		return -1, false, fmt.Errorf("the Landlock-only child ended before the payload started: %w", err)
	}
	if m.Kind != MsgListener || listener < 0 {
		if listener >= 0 {
			unix.Close(listener)
		}
		return -1, false, &childFailure{code: m.Code, msg: m.Msg}
	}
	return listener, m.Killable, nil
}

// maxExtraFiles is how many ExtraFiles the stage can pass on to the child
// that becomes the payload (SCM_MAX_FD, one message).
const maxExtraFiles = 253

// sendExtraFiles passes the ExtraFiles on to the child, which was started
// before the spec named them: one byte, and the descriptors that are not
// nil in order (the spec says where each goes).
func sendExtraFiles(conn int, extra []int) error {
	var fds []int
	for _, fd := range extra {
		if fd >= 0 {
			fds = append(fds, fd)
		}
	}
	if len(fds) > maxExtraFiles {
		return errs.New("ExtraFiles: %d, and %s passes at most %d", len(fds), errs.IsolationLandlock, maxExtraFiles)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if err := unix.Sendmsg(conn, []byte{0}, oob, nil, 0); err != nil {
		return fmt.Errorf("ExtraFiles: pass them to the Landlock-only child: %w", err)
	}
	return nil
}

// receiveExtraFiles takes the descriptors sendExtraFiles sent.
func receiveExtraFiles(conn int) ([]int, error) {
	var got []int
	b := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*maxExtraFiles))
	_, oobn, _, _, err := unix.Recvmsg(conn, b, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("ExtraFiles: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, fmt.Errorf("ExtraFiles: %w", err)
	}
	for i := range msgs {
		fds, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			return nil, fmt.Errorf("ExtraFiles: %w", err)
		}
		got = append(got, fds...)
	}
	return got, nil
}

// extraFilesAt puts the descriptors received (got) where the spec's
// ExtraFiles say, -1 for a nil one.
func extraFilesAt(extra, got []int) ([]int, error) {
	out := make([]int, len(extra))
	for i, fd := range extra {
		out[i] = -1
		if fd < 0 {
			continue
		}
		if len(got) == 0 {
			return nil, errors.New("ExtraFiles: fewer descriptors came than the spec names")
		}
		out[i], got = got[0], got[1:]
	}
	if len(got) > 0 {
		return nil, errors.New("ExtraFiles: more descriptors came than the spec names")
	}
	return out, nil
}

// readFrameWithFd reads one Frame from the socket conn, and the
// descriptor sent with it (-1 if none).
func readFrameWithFd(conn *os.File, v any) (int, error) {
	var head [4]byte
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(int(conn.Fd()), head[:], oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, err
	}
	fd := -1
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
			fd = fds[0]
		}
	}
	if n == 0 {
		return fd, io.EOF
	}
	if err := ReadFrame(io.MultiReader(bytes.NewReader(head[:n]), conn), v, "child message"); err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return -1, err
	}
	return fd, nil
}

// RunLandlockChild restricts itself and becomes the payload: rlimits, the
// Landlock ruleset (its domain nests in the supervisor's outer thread's),
// no capabilities, the filter that hands the supervisor what Landlock does
// not check (whose listener the supervisor takes before the payload runs),
// then nsrun's guard and the seccomp profile.
func RunLandlockChild() int {
	// Landlock, NO_NEW_PRIVS, capabilities and seccomp are per thread;
	// execve from this same thread hands them to the payload.
	runtime.LockOSThread()
	conn, status := os.NewFile(childConnFD, "supervisor"), os.NewFile(StatusFD, "status")
	// Neither may be closed by the collector once ExtraFiles take their
	// numbers (PlaceExtraFiles).
	defer runtime.KeepAlive(conn)
	defer runtime.KeepAlive(status)
	connFD := childConnFD
	fail := func(code int, err error) int {
		if b, ferr := Frame(&childMsg{Kind: MsgError, Code: code, Msg: err.Error()}, "child message"); ferr == nil {
			_, _ = unix.Write(connFD, b)
		}
		return code
	}
	// The connection closes as the payload is executed: the supervisor
	// knows it started.
	unix.CloseOnExec(childConnFD)
	if err := unix.CloseRange(childConnFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail(ExitSetup, fmt.Errorf("close_range: %w", err))
	}
	got, err := receiveExtraFiles(childConnFD)
	if err != nil {
		return fail(ExitSetup, err)
	}
	spec, err := ReadSpec(conn)
	if err != nil {
		return fail(ExitSetup, err)
	}
	extra, err := extraFilesAt(spec.ExtraFiles, got)
	if err != nil {
		return fail(ExitSetup, err)
	}
	step := stepLogger(spec.Verbose, status)
	if spec.TTY != nil && spec.TTY.Foreground {
		// The payload takes the terminal: its group, made at the fork.
		if t, err := stageTTY(spec.TTY); err == nil {
			_ = setForeground(int(t.slave.Fd()), unix.Getpgrp())
		}
	}
	if err := ApplyRlimits(spec.Rlimits); err != nil {
		return fail(ExitSetup, err)
	}
	// The rule paths are opened with the capabilities this process still
	// has, each without following symlinks and checked to be the file the
	// rules were made for.
	if err := landlock.Apply(*spec.Landlock); err != nil {
		return fail(ExitSetup, err)
	}
	step("landlock applied")
	if err := ns.DropPrivileges(); err != nil {
		return fail(ExitSetup, err)
	}
	// The filter that hands calls to the supervisor first: where two
	// filters refuse a call with different errnos, the kernel answers with
	// the newest one's, and the profile's must stand (as with namespaces,
	// and as a container runtime applying the same profile answers).
	listener, killable, err := seccomp.LoadListener(spec.Supervisor.Filter)
	if err != nil {
		return fail(ExitSetup, err)
	}
	for _, prog := range spec.Seccomp {
		if err := seccomp.Load(prog); err != nil {
			unix.Close(listener)
			return fail(ExitSetup, err)
		}
	}
	step("capabilities dropped, seccomp filters loaded")
	b, err := Frame(&childMsg{Kind: MsgListener, Killable: killable}, "child message")
	if err != nil {
		return fail(ExitSetup, err)
	}
	// The listener goes to the supervisor and must not stay open here:
	// the payload could answer its own calls with it.
	if err := unix.Sendmsg(childConnFD, b, unix.UnixRights(listener), nil, 0); err != nil {
		return ExitSetup
	}
	unix.Close(listener)
	if err := unix.Chdir(spec.Dir); err != nil {
		return fail(ExitSetup, fmt.Errorf("chdir %s inside the sandbox: %w", spec.Dir, err))
	}
	path, err := lookPath(spec.Args[0], spec.Env)
	if err != nil {
		return fail(execCode(err), err)
	}
	// The payload's descriptors: its streams, the ExtraFiles at 3, 4, ...
	// and nothing else (the connection moves above them, close-on-exec).
	if connFD, err = PlaceExtraFiles(extra, childConnFD); err != nil {
		return fail(ExitSetup, err)
	}
	err = unix.Exec(path, spec.Args, spec.Env)
	err = execError(spec, path, err)
	return fail(execCode(err), err)
}
