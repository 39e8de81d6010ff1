package nsrun

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
)

// sysCmd is the running sandbox: the init process and the pipes to it.
type sysCmd struct {
	pid        int      // the init (or the Landlock-only stage)
	waitPid    int      // the child to reap: pid, or the fork helper that forked it
	helperHold *os.File // keeps the fork helper from reaping the init yet
	pidfd      int      // -1 when the kernel gave none
	stdio      *stdio
	reaped     bool // guarded by mu; after it pid may name another process
	wstatus    unix.WaitStatus
	lifeline   *os.File // write end of the spec pipe; the init dies when it closes
	status     *bufio.Reader
	statusFile *os.File
	release    chan struct{} // lets the thread that forked the init go
	done       chan struct{} // closed when Wait has reaped the init
	started    time.Time
	running    time.Time
	foreground bool
	tty        int
	direct     bool   // the Landlock-only stage, not an init in namespaces
	payload    int    // the Landlock-only payload's pid (and process group), once started
	tmpDir     string // removed once the sandbox is gone
	cgroup     *sandboxCgroup
	mu         sync.Mutex
	timedOut   bool
}

func init() {
	// Registration cannot fail here: the names are this package's own.
	_ = reexec.Register(initStage, runInit)
	_ = reexec.Register(landlockStage, runLandlockStage)
	_ = reexec.Register(landlockChildStage, runLandlockChild)
	_ = reexec.Register(probeStage, func() int { return 0 })
	_ = reexec.Register(forkStage, runForkHelper)

}

// Start builds the sandbox and starts the command in it. It returns once
// the payload has been started, or with a *SetupError, a *RuleError, a
// *DirError or an *IDError when nothing was run.
//
// The init is started first and boots (exec, Go runtime) while this
// process checks the paths and plans the sandbox; it waits for its spec
// before it touches anything, and is killed if planning fails. (A
// Landlock-only stage that gets the terminal is planned first: it takes the
// terminal as it starts.)
func (c *Cmd) Start() error {
	if c.sys != nil {
		return errors.New("nsrun: Start called twice")
	}
	s := &sysCmd{started: time.Now(), release: make(chan struct{}), done: make(chan struct{}), pidfd: -1}
	c.sys = s
	fail := func(err error) error {
		if c.report.Version == 0 {
			c.report = Report{Version: 1, Backend: "linux", Enforcement: "none"}
		}
		c.report.Error = err.Error()
		c.report.Exit.Code = ExitCode(err)
		s.removeTmp()
		if s.cgroup != nil {
			s.cgroup.remove()
		}
		return err
	}
	p := c.policy()
	s.direct = p.Isolation == IsolationLandlock
	ids, idErr := policyIDs(p)
	if idErr != nil || len(c.Args) == 0 {
		// Bad input: prepare names it, and nothing needs to start.
		prep, err := c.prepare()
		if err == nil {
			prep.cleanup()
			err = idErr
		}
		return fail(err)
	}
	var err error
	limits := p.Memory > 0 || p.Pids > 0 || p.CPU > 0
	if limits {
		if s.cgroup, err = newCgroup(p); err != nil {
			return fail(err)
		}
	} else if s.direct {
		// Without a PID namespace, a cgroup is the surest way to find every
		// process of the sandbox at the end; where none can be made, the
		// stage's subreaper does it alone.
		s.cgroup = newKillCgroup()
	}
	foreground := s.takeForeground(c.Stdin)

	specR, specW, err := os.Pipe()
	if err != nil {
		return fail(fmt.Errorf("pipe: %w", err))
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		closeFiles(specR, specW)
		return fail(fmt.Errorf("pipe: %w", err))
	}
	s.stdio, err = newStdio(c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		closeFiles(specR, specW, statusR, statusW)
		return fail(fmt.Errorf("standard streams: %w", err))
	}
	s.lifeline, s.statusFile, s.status = specW, statusR, bufio.NewReader(statusR)
	attr := &syscall.ProcAttr{
		Env: []string{},
		Files: []uintptr{s.stdio.fds[0].Fd(), s.stdio.fds[1].Fd(), s.stdio.fds[2].Fd(),
			specR.Fd(), statusW.Fd()},
		Sys: &syscall.SysProcAttr{
			// Without a terminal to share, the sandbox gets a session of its
			// own: no controlling terminal means no TIOCSTI into the caller's.
			Setsid: !foreground,
			PidFD:  &s.pidfd,
		},
	}
	if s.cgroup != nil && s.cgroup.v1 == nil {
		// Born in its cgroup: nothing runs outside the limits, not even
		// for a moment.
		attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, s.cgroup.fd
	}
	stage := initStage
	if s.direct {
		// The stage sets a parent-death signal of its own, which it
		// catches to end the sandbox first.
		stage = landlockStage
	} else {
		uids, gids := ns.Maps(ids.uid, ids.hostUID, ids.gid, ids.hostGID)
		attr.Sys.Cloneflags = ns.CloneFlags(p.Net == NetHost)
		attr.Sys.UidMappings, attr.Sys.GidMappings = uids, gids
		attr.Sys.AmbientCaps = ns.SetupCaps
	}
	// plan checks the paths and decides all the init needs.
	plan := func() (*prepared, []byte, error) {
		prep, err := c.prepare()
		if err != nil {
			return nil, nil, err
		}
		prep.spec.Foreground = foreground
		spec, err := encodeSpec(&prep.spec)
		if err != nil {
			prep.cleanup()
			return nil, nil, err
		}
		return prep, spec, nil
	}
	var (
		prep    *prepared
		spec    []byte
		prepErr error
		forked  bool
	)
	fork := func() {
		why := ""
		if !s.direct {
			why = useForkHelper()
		}
		if why != "" {
			c.logf("forking the init through the fork helper (%s)", why)
			err = s.startThroughHelper(attr)
		} else {
			err = s.start(stage, attr)
		}
		forked = err == nil
	}
	// Forking first and planning while the child execs and boots is
	// faster than planning during the fork: a parent busy meanwhile slows
	// the fork (copy-on-write faults, a locked thread waiting for the
	// scheduler).
	fork()
	prep, spec, prepErr = plan()
	runtime.KeepAlive(s.stdio)
	closeFiles(specR, statusW)
	s.stdio.closeChildEnds()
	if prepErr != nil || !forked {
		if forked {
			s.abort()
		} else {
			closeFiles(specW, statusR)
			s.stdio.closeParentEnds()
			s.restoreForeground()
		}
		if prep != nil {
			prep.cleanup()
		}
		if prepErr != nil {
			return fail(prepErr)
		}
		if s.direct {
			return fail(&SetupError{Code: ExitSetup, Msg: "start the Landlock-only stage: " + err.Error()})
		}
		err = ns.Explain(err, ns.ReadSettings(), ids.hostUID)
		return fail(&SetupError{Code: ExitSetup, Msg: "create namespaces and start the init: " + err.Error() +
			"; where user namespaces are not allowed, --isolation landlock runs without them"})
	}
	c.report, s.tmpDir = prep.report, prep.tmpDir
	if s.cgroup != nil && limits {
		c.report.Limits["cgroup"] = "v2"
		if s.cgroup.v1 != nil {
			c.report.Limits["cgroup"] = "v1"
		}
	}
	if s.direct {
		c.logf("Landlock only: no namespaces, no mounts; stage started, planned at %.2f ms", ms(time.Since(s.started)))
	} else {
		c.logf("init started in new namespaces, %d mounts over %s planned at %.2f ms",
			len(prep.spec.Plan.Ops)+1, prep.spec.Plan.Root.Source, ms(time.Since(s.started)))
	}
	if c.afterPrepare != nil {
		c.afterPrepare()
	}
	// With cgroup v1 the init must be moved into its cgroups before it
	// reads the spec (and so before the payload exists).
	if s.cgroup != nil && s.cgroup.v1 != nil {
		if err := s.cgroup.v1.add(s.pid); err != nil {
			s.abort()
			return fail(err)
		}
	}
	s.releaseHelper()
	if c.Timeout > 0 || c.ctx != nil && c.ctx.Done() != nil {
		go s.watch(c)
	}
	// The init reads the whole spec before it writes anything, so writing
	// it here cannot deadlock; an init that died makes it fail with EPIPE.
	if _, err := specW.Write(spec); err != nil {
		s.abort()
		return fail(&SetupError{Code: ExitSetup, Msg: "send spec to init: " + err.Error()})
	}
	msg, err := s.next()
	if err != nil || msg.Kind != msgStarted {
		s.abort()
		if err == nil && msg.Kind == msgError {
			return fail(&SetupError{Code: msg.Code, Msg: msg.Msg})
		}
		return fail(&SetupError{Code: ExitSetup, Msg: "sandbox init ended before the payload started (" + describeWait(s.wstatus) + ")"})
	}
	if s.direct {
		s.mu.Lock()
		s.payload = msg.Code
		s.mu.Unlock()
	}
	s.running = time.Now()
	c.report.TimingsMS.Setup = ms(s.running.Sub(s.started))
	c.logf("sandbox ready in %.2f ms", c.report.TimingsMS.Setup)
	return nil
}

// start forks the init (or the Landlock-only stage) from this process.
func (s *sysCmd) start(stage string, attr *syscall.ProcAttr) error {
	started := make(chan error, 1)
	go s.forkAndHold(stage, attr, started)
	return <-started
}

// forkAndHold starts the init from a locked thread and keeps that thread
// alive until Wait is done: the init's parent-death signal follows the
// thread that forked it, not the process.
func (s *sysCmd) forkAndHold(stage string, attr *syscall.ProcAttr, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, err := syscall.ForkExec(reexec.Self, []string{stage}, attr)
	s.pid, s.waitPid = pid, pid
	started <- err
	if err != nil {
		return
	}
	<-s.release
}

// watch ends the sandbox when the context is done or the timeout expires.
func (s *sysCmd) watch(c *Cmd) {
	if !c.deadlineReached(s.done) {
		return
	}
	s.mu.Lock()
	s.timedOut = true
	s.mu.Unlock()
	// Killing pid 1 of the PID namespace kills every process in it; the
	// Landlock-only stage is asked to end the sandbox.
	_ = s.signal(unix.SIGKILL)
}

// killGroup ends what is left of a Landlock-only payload's process group,
// should its stage have died without ending it. The group id cannot be
// reused while any process of the group is alive.
func (s *sysCmd) killGroup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.direct && s.payload > 0 {
		_ = unix.Kill(-s.payload, unix.SIGKILL)
	}
}

func (s *sysCmd) removeTmp() {
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
		s.tmpDir = ""
	}
}

// signal sends sig to the init, through its pidfd where there is one so
// that a recycled pid can never be hit. The Landlock-only stage is asked to
// end the sandbox instead of being sent SIGKILL, which would end it alone.
func (s *sysCmd) signal(sig unix.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reaped {
		return os.ErrProcessDone
	}
	if s.direct && sig == unix.SIGKILL && s.payload > 0 {
		if _, err := s.lifeline.Write([]byte{ctlKill}); err == nil {
			return nil
		}
	}
	if s.pidfd >= 0 {
		return unix.PidfdSendSignal(s.pidfd, sig, nil, 0)
	}
	return unix.Kill(s.pid, sig)
}

// reap waits for the init (or the Landlock-only stage) to exit.
func (s *sysCmd) reap() {
	s.releaseHelper()
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(s.waitPid, &ws, unix.WUNTRACED, nil)
		if err == unix.EINTR {
			continue
		}
		if err == nil && ws.Stopped() {
			continue
		}
		break
	}
	s.mu.Lock()
	s.reaped, s.wstatus = true, ws
	if s.pidfd >= 0 {
		unix.Close(s.pidfd)
		s.pidfd = -1
	}
	s.mu.Unlock()
}

func (s *sysCmd) next() (initMsg, error) {
	var m initMsg
	err := readFrame(s.status, &m, "status")
	return m, err
}

// abort kills and reaps an init whose payload never started.
func (s *sysCmd) abort() {
	_ = s.signal(unix.SIGKILL)
	s.reap()
	_ = s.stdio.wait()
	s.finish()
	s.restoreForeground()
}

func (s *sysCmd) finish() {
	s.killGroup()
	s.removeTmp()
	if s.cgroup != nil {
		if s.direct {
			s.cgroup.kill()
		}
		s.cgroup.remove()
	}
	close(s.done)
	close(s.release)
	s.lifeline.Close()
	s.statusFile.Close()
}

// Wait waits for the payload to exit and every process of the sandbox to
// end. It returns nil when the payload exited 0, an *ExitError otherwise.
func (c *Cmd) Wait() error {
	s := c.sys
	if s == nil || s.running.IsZero() {
		return errors.New("nsrun: Wait without a successful Start")
	}
	msg, msgErr := s.next()
	for msgErr == nil && msg.Kind == msgStopped {
		s.suspend()
		msg, msgErr = s.next()
	}
	s.reap()
	if s.cgroup != nil {
		c.report.Exit.OOMKilled, c.report.Exit.PidsMax = s.cgroup.events()
	}
	ioErr := s.stdio.wait()
	c.logf("sandbox gone at %.2f ms", ms(time.Since(s.started)))
	s.finish()
	s.restoreForeground()
	c.report.TimingsMS.Run = ms(time.Since(s.running))

	s.mu.Lock()
	timedOut := s.timedOut
	s.mu.Unlock()
	ee := &ExitError{}
	switch {
	case timedOut:
		ee.Code, ee.TimedOut = ExitTimeout, true
	case msgErr == nil && msg.Kind == msgExit:
		ee.Code, ee.Signal = msg.Code, msg.Signal
	case s.wstatus.Signaled():
		ee.Code, ee.Signal = 128+int(s.wstatus.Signal()), int(s.wstatus.Signal())
	default:
		ee.Code = s.wstatus.ExitStatus()
	}
	c.report.Exit.Code, c.report.Exit.TimedOut = ee.Code, ee.TimedOut
	if ee.Signal != 0 {
		sig := ee.Signal
		c.report.Exit.Signal = &sig
	}
	if ee.Code == 0 {
		if ioErr != nil {
			return fmt.Errorf("nsrun: copy output: %w", ioErr)
		}
		return nil
	}
	return ee
}

// Signal sends sig to the sandbox's init, which passes it on to the
// payload.
func (c *Cmd) Signal(sig os.Signal) error {
	if c.sys == nil || c.sys.running.IsZero() {
		return errors.New("nsrun: Signal before Start")
	}
	ss, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("nsrun: unsupported signal %v", sig)
	}
	return c.sys.signal(unix.Signal(ss))
}

func describeWait(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + unix.SignalName(ws.Signal())
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// takeForeground reports whether stdin is the terminal this process group
// is in the foreground of; the payload then takes the terminal over, so job
// control works, and Wait hands it back.
func (s *sysCmd) takeForeground(stdin any) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return false
	}
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	if err != nil || pgrp != unix.Getpgrp() {
		return false
	}
	s.foreground, s.tty = true, int(f.Fd())
	return true
}

// restoreForeground gives the terminal back to this process group.
func (s *sysCmd) restoreForeground() {
	if s.foreground {
		setForeground(s.tty, unix.Getpgrp())
	}
}

// setForeground makes pgrp the foreground of the terminal tty. A background
// process group must block SIGTTOU to do that; the mask is per thread, so
// the thread is locked meanwhile.
func setForeground(tty, pgrp int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	set.Val[0] = 1 << (uint(unix.SIGTTOU) - 1)
	if unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old) != nil {
		return
	}
	_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, pgrp)
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
}

// suspend stops this process as a shell job stops, because the payload
// holding the terminal was stopped (Ctrl-Z). Once continued it tells the
// init to continue the payload, with the terminal if this process group
// has it again (fg) and without it otherwise (bg).
func (s *sysCmd) suspend() {
	s.stopSelf()
	ctl := byte(ctlBackground)
	if s.haveTerminal() {
		ctl = ctlForeground
	}
	_, _ = s.lifeline.Write([]byte{ctl})
}

// stopSelf gives the terminal back and stops this process until the shell
// continues it. Directed at this thread, the stop takes effect before the
// call returns; sent to the process, another thread might take it later.
func (s *sysCmd) stopSelf() {
	s.restoreForeground()
	runtime.LockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
	runtime.UnlockOSThread()
}

// haveTerminal reports whether this process group is in the foreground of
// the terminal again.
func (s *sysCmd) haveTerminal() bool {
	pgrp, err := unix.IoctlGetInt(s.tty, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

func (c *Cmd) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "nsrun: "+format+"\n", a...)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
