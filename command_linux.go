package nsrun

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/changes"
	"github.com/nsrun/nsrun/internal/fdpass"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/ptrace"
	"github.com/nsrun/nsrun/reexec"
	"github.com/nsrun/nsrun/seccomp"
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
	begun      chan struct{} // closed once the payload has started
	ended      time.Time     // when the init was reaped
	rusage     unix.Rusage   // of the child reaped: the init, the helper or the Landlock-only payload
	process    *os.Process   // the payload, once it started
	usage      *launch.Usage // what the init counted of everything it reaped
	backstop   *time.Timer   // kills the init if it does not end after the payload was killed
	term       *terminal     // the payload's pty, nil without one
	log        io.Writer     // the Cmd's Log
	direct     bool          // the Landlock-only stage, not an init in namespaces
	payload    int           // the payload's pid as its supervisor sees it, once started
	tmpDir     *tmpDir       // removed once the sandbox is gone
	kept       string        // --keep-changes, whose work directories are emptied then
	keptLock   *os.File      // held on kept until then
	cgroup     *cgroup.Group
	listen     *listenSupervisor // serves the guard's listen() calls
	watcher    *absent.Watcher   // names kept absent, watched from here
	git        *gitProtection    // looked at again once the sandbox is gone
	netSock    *os.File          // nsrun's end of the init's socket factory (a filtered network)
	inside     *netproxy.Inside  // the sandbox's network namespace, through netSock
	net        *netproxy.Server  // the filtered network's server
	mu         sync.Mutex
	killedFor  string            // what appeared, when the watcher ended the sandbox
	denials    *denialLog        // --trace-denials: what the tracer recorded
	judge      *plan.Judge       // --trace-denials: attributes what was refused
	tracer     *ptrace.Tracer    // --trace-denials: reaps the process it traces
	filters    []seccomp.Program // --trace-denials: the sandbox's filters, untraced
	specSent   bool              // guarded by mu; the init has its spec: control bytes may follow
	stageArgs  []string          // the stage's arguments after its name
}

// backend names the Linux backend in the report.
func (c *Cmd) backend() string {
	if c.policy().Isolation == IsolationLandlock {
		return "landlock"
	}
	return "linux"
}

// stopper is the running sandbox, to end it from outside.
func (c *Cmd) stopper() stopper {
	if c.sys == nil {
		return nil
	}
	return c.sys
}

// start builds the sandbox and starts the command in it.
//
// The init is started first and boots (exec, Go runtime) while this
// process checks the paths and plans the sandbox; it waits for its spec
// before it touches anything, and is killed if planning fails.
func (c *Cmd) start() error {
	s := &sysCmd{started: time.Now(), release: make(chan struct{}), done: make(chan struct{}), begun: make(chan struct{}), pidfd: -1, log: c.Log}
	c.sys = s
	p := c.policy()
	s.direct = p.Isolation == IsolationLandlock
	fail := func(err error) error {
		c.report.notBuilt(c.backend(), err)
		s.removeTmp()
		if s.cgroup != nil {
			s.cgroup.Remove()
		}
		if s.term != nil {
			s.term.close()
		}
		return err
	}
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
	limits := p.Memory > 0 || p.Pids > 0 || p.CPU > 0
	var err error
	if limits {
		if s.cgroup, err = newCgroup(p); err != nil {
			return fail(err)
		}
	} else if s.direct {
		// Without a PID namespace, a cgroup is the surest way to find every
		// process of the sandbox at the end; where none can be made, the
		// stage's subreaper does it alone.
		s.cgroup = cgroup.NewKill()
	}
	if s.term, err = c.newTerminal(s.direct); err != nil {
		return fail(err)
	}
	l, err := s.newLaunch(c, p, ids)
	if err != nil {
		return fail(err)
	}
	prep, spec, err := s.forkAndPlan(c, l, ids)
	if err != nil {
		return fail(err)
	}
	c.report, s.tmpDir, s.git, s.kept, s.keptLock = prep.report, prep.tmpDir, prep.git, prep.kept, prep.lock
	s.filters = prep.filters
	if s.cgroup != nil && limits {
		c.report.Limits["cgroup"] = s.cgroup.Version()
	}
	if err := s.sendSpec(c, p, prep, spec, l.specW); err != nil {
		s.abort()
		return fail(err)
	}
	if err := s.awaitPayload(c, p); err != nil {
		s.abort()
		return fail(err)
	}
	return nil
}

// startup is what the first process of the sandbox (the init, or the
// Landlock-only stage) is started with.
type startup struct {
	stage        string
	attr         *syscall.ProcAttr
	specR, specW *os.File // the spec's pipe; specW stays the lifeline
	statusW      *os.File // the status pipe's child end
	netChild     *os.File // the network socket's child end, if any
	extraAt      []int    // where the ExtraFiles are in the child
}

// newLaunch makes the pipes, the standard streams and the descriptors of
// the first process, and decides how it starts: in new namespaces, or as
// the Landlock-only stage.
func (s *sysCmd) newLaunch(c *Cmd, p *Policy, ids idMap) (*startup, error) {
	l := &startup{stage: launch.InitStage}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		closeFiles(specR, specW)
		return nil, fmt.Errorf("pipe: %w", err)
	}
	// The caller's terminal never enters the sandbox: the streams that
	// are it become the sandbox's own pty.
	s.stdio, err = newStdio(s.term.streams(c.Stdin, c.Stdout, c.Stderr))
	if err != nil {
		closeFiles(specR, specW, statusR, statusW)
		return nil, fmt.Errorf("standard streams: %w", err)
	}
	s.term.giveSlave(s.stdio)
	l.specR, l.specW, l.statusW = specR, specW, statusW
	s.lifeline, s.statusFile, s.status = specW, statusR, bufio.NewReader(statusR)
	l.attr = &syscall.ProcAttr{
		Env: []string{},
		Files: []uintptr{s.stdio.fds[0].Fd(), s.stdio.fds[1].Fd(), s.stdio.fds[2].Fd(),
			specR.Fd(), statusW.Fd()},
		Sys: &syscall.SysProcAttr{
			// A session of its own: no controlling terminal, or the
			// sandbox's own pty, never the caller's.
			Setsid: true,
			PidFD:  &s.pidfd,
		},
	}
	attr := l.attr
	if s.term != nil && s.term.peer != nil {
		attr.Files = append(attr.Files, s.term.peer.Fd())
	}
	if s.cgroup != nil {
		// Born in its cgroup: nothing runs outside the limits, not even
		// for a moment.
		attr.Sys.CgroupFD, attr.Sys.UseCgroupFD = s.cgroup.CloneFD()
	}
	if !s.direct && p.servesNetwork() {
		if s.netSock, l.netChild, err = socketPair(); err != nil {
			closeFiles(specR, specW, statusR, statusW)
			s.stdio.closeChildEnds()
			s.stdio.closeParentEnds()
			return nil, err
		}
		for len(attr.Files) < launch.NetSockFD {
			attr.Files = append(attr.Files, ^uintptr(0)) // no terminal at launch.TTYSockFD
		}
		attr.Files = append(attr.Files, l.netChild.Fd()) // launch.NetSockFD
	}
	// Last, after every descriptor of a fixed number, where the fork
	// helper places them too.
	attr.Files, l.extraAt = extraFilePlaces(attr.Files, c.ExtraFiles, launch.NetSockFD+1)
	if s.direct {
		// The stage is a session leader with the pty as its terminal; it
		// sets a parent-death signal of its own, which it catches to end
		// the sandbox first.
		l.stage = launch.LandlockStage
		if p.TraceDenials {
			s.stageArgs = append(s.stageArgs, launch.StageTraced)
		}
		if s.cgroup != nil && s.cgroup.Version() == "v1" {
			// Moved in after it started (sendSpec).
			s.stageArgs = append(s.stageArgs, launch.StageMovedIn)
		}
		if s.term != nil {
			s.term.stageAttr(attr.Sys)
		}
	} else {
		uids, gids := ns.Maps(ids.uid, ids.hostUID, ids.gid, ids.hostGID)
		attr.Sys.Cloneflags = ns.CloneFlags(p.Net == NetHost)
		attr.Sys.UidMappings, attr.Sys.GidMappings = uids, gids
		attr.Sys.AmbientCaps = ns.SetupCaps
		if hasOverlay(p) {
			attr.Sys.AmbientCaps = ns.OverlayCaps
		}
	}
	return l, nil
}

// forkAndPlan starts the first process and, while it execs and boots,
// checks the paths and decides all it needs: forking first is faster than
// planning during the fork (a parent busy meanwhile slows the fork with
// copy-on-write faults, a locked thread waiting for the scheduler). On an
// error nothing of the sandbox is left running.
func (s *sysCmd) forkAndPlan(c *Cmd, l *startup, ids idMap) (*prepared, []byte, error) {
	var err error
	why := ""
	if !s.direct {
		why = useForkHelper()
	}
	if why != "" {
		c.logf("forking the init through the fork helper (%s)", why)
		err = s.startThroughHelper(l.attr, len(c.ExtraFiles)-countNil(c.ExtraFiles))
	} else {
		err = s.start(l.stage, l.attr)
	}
	forked := err == nil
	prep, spec, prepErr := c.plan(s.term, l.extraAt)
	runtime.KeepAlive(s.stdio)
	closeFiles(l.specR, l.statusW, l.netChild)
	s.stdio.closeChildEnds()
	s.term.started()
	if prepErr == nil && forked {
		return prep, spec, nil
	}
	if forked {
		s.abort()
	} else {
		closeFiles(l.specW, s.statusFile)
		s.stdio.closeParentEnds()
	}
	if prep != nil {
		prep.cleanup()
	}
	if prepErr != nil {
		return nil, nil, prepErr
	}
	if s.direct {
		return nil, nil, &SetupError{Code: ExitSetup, Op: "start the Landlock-only stage", Err: err}
	}
	err = ns.Explain(err, ns.ReadSettings(), ids.hostUID)
	return nil, nil, &SetupError{Code: ExitSetup, Op: "create namespaces and start the init", Err: err,
		Msg: "create namespaces and start the init: " + err.Error() + "; where user namespaces are not allowed, --isolation landlock runs without them"}
}

// plan checks the paths and decides all the first process needs, as its
// encoded spec.
func (c *Cmd) plan(term *terminal, extraAt []int) (*prepared, []byte, error) {
	prep, err := c.prepare()
	if err != nil {
		return nil, nil, err
	}
	if term != nil {
		prep.spec.TTY = term.spec(term.foregroundAtStart())
	}
	prep.spec.ExtraFiles = extraAt
	spec, err := launch.EncodeSpec(&prep.spec)
	if err != nil {
		prep.cleanup()
		return nil, nil, err
	}
	return prep, spec, nil
}

// sendSpec readies what watches the sandbox (its cgroup v1 membership,
// the watcher of absent names, the tracer), then writes the spec and
// starts the filtered network. The caller aborts the sandbox on an error.
func (s *sysCmd) sendSpec(c *Cmd, p *Policy, prep *prepared, spec []byte, specW *os.File) error {
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
	if s.cgroup != nil {
		if err := limitError(s.cgroup.Enter(s.pid)); err != nil {
			return err
		}
	}
	if err := s.watchAbsent(c, prep); err != nil {
		return err
	}
	if p.TraceDenials {
		if err := s.traceDenials(c); err != nil {
			return err
		}
	}
	s.releaseHelper()
	c.startWatch(s, s.begun, s.done)
	// The init reads the whole spec before it writes anything, so writing
	// it here cannot deadlock; an init that died makes it fail with EPIPE.
	if _, err := specW.Write(spec); err != nil {
		return &SetupError{Code: ExitSetup, Op: "launch.Send spec to init", Err: err}
	}
	s.mu.Lock()
	s.specSent = true
	s.mu.Unlock()
	if prep.net == nil {
		return nil
	}
	if err := s.startNetwork(prep.net, s.netSock); err != nil {
		setupErr := &SetupError{Code: ExitSetup, Op: "network", Err: err}
		// An init that ended first has said why.
		if errors.Is(err, fdpass.ErrClosed) {
			if msg, merr := s.next(); merr == nil && msg.Kind == launch.MsgError {
				setupErr = setupErrorOf(msg)
			}
		}
		return setupErr
	}
	c.logf("network: proxy on %s, DNS on %s", prep.net.proxy, c.report.Network.DNS)
	return nil
}

// awaitPayload reads the first process's messages until the payload has
// started (taking the seccomp listeners it hands over), then starts the
// terminal's relay and lets the supervisor reap. The caller aborts the
// sandbox on an error.
func (s *sysCmd) awaitPayload(c *Cmd, p *Policy) error {
	msg, err := s.next()
	for err == nil && msg.Kind == launch.MsgListener {
		if err = s.takeListener(msg.Code, p.AllowBind); err != nil {
			return &SetupError{Code: ExitSetup, Err: err}
		}
		msg, err = s.next()
	}
	// A name kept absent appeared and the sandbox was ended before the
	// init could say the payload had started: it ran, and Wait says what
	// it planted; it is not a sandbox that could not be built.
	endedEarly := errors.Is(err, io.EOF) && s.endedByWatcher()
	if !endedEarly && (err != nil || msg.Kind != launch.MsgStarted) {
		if err == nil && msg.Kind == launch.MsgError {
			return setupErrorOf(msg)
		}
		return &SetupError{Code: ExitSetup, Msg: "sandbox init ended before the payload started (" + describeWait(s.wstatus) + ")"}
	}
	if s.term != nil {
		if err := s.term.begin(s.control); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.payload = msg.Pid
	s.mu.Unlock()
	s.running = time.Now()
	if endedEarly {
		s.process = processOf(s.pid, func(int) bool { return s.signal(0) == nil })
	} else {
		s.process = s.findPayload(msg)
	}
	c.Process = s.process
	if !endedEarly {
		s.control(launch.CtlStarted) // the supervisor may reap the payload now
	}
	close(s.begun)
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
	var movedIn []string
	if stage == launch.LandlockStage {
		movedIn = []string{launch.StageMovedIn}
	}
	pid, err := cgroup.ForkExec(reexec.Self, append([]string{stage}, s.stageArgs...), attr, movedIn...)
	s.pid, s.waitPid = pid, pid
	started <- err
	if err != nil {
		return
	}
	<-s.release
}

// terminate sends SIGTERM to the payload through its supervisor (the
// init, the Landlock-only stage), or to the payload itself.
func (s *sysCmd) terminate() error {
	return s.signal(unix.SIGTERM)
}

// killBackstop is how long the supervisor has to end the sandbox and
// report after its payload was killed, before it is killed itself.
const killBackstop = 500 * time.Millisecond

// kill ends the whole sandbox. Once the payload has started it kills the
// payload: its supervisor (the init, the Landlock-only stage) then kills
// and reaps every other process at once and reports what they all used,
// which a killed supervisor could not; the supervisor is killed too if it
// has not ended shortly after (killHard). Before that, and without a
// handle on the payload, it kills the init, which ends every process of
// its PID namespace, or asks the Landlock-only stage to end the sandbox
// (signal).
func (s *sysCmd) kill() error {
	s.mu.Lock()
	if s.reaped {
		s.mu.Unlock()
		return os.ErrProcessDone
	}
	p := s.process
	if (p != nil || s.direct) && s.backstop == nil {
		s.backstop = time.AfterFunc(killBackstop, s.killHard)
	}
	s.mu.Unlock()
	var err error
	if p == nil {
		err = s.signal(unix.SIGKILL)
	} else if perr := p.Kill(); perr != nil && !errors.Is(perr, os.ErrProcessDone) {
		// Not the payload's any more (see findPayload): the init, then.
		err = s.signal(unix.SIGKILL)
	}
	s.killGroup()
	return err
}

// killHard kills the supervisor itself, and what can be reached of a
// Landlock-only sandbox without it: the payload's process group, the
// stage's, and the cgroup the sandbox was born in.
func (s *sysCmd) killHard() {
	s.mu.Lock()
	if !s.reaped {
		if s.pidfd >= 0 {
			_ = unix.PidfdSendSignal(s.pidfd, unix.SIGKILL, nil, 0)
		} else {
			_ = unix.Kill(s.pid, unix.SIGKILL)
		}
	}
	s.mu.Unlock()
	s.killGroup()
	if s.direct {
		_ = unix.Kill(-s.pid, unix.SIGKILL)
		if s.cgroup != nil {
			s.cgroup.Kill()
		}
	}
}

// killGroup ends what is left of a Landlock-only payload's process group
// (its stage ends the rest). The group id cannot be reused while any
// process of the group is alive.
func (s *sysCmd) killGroup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.direct && s.payload > 0 {
		_ = unix.Kill(-s.payload, unix.SIGKILL)
	}
}

func (s *sysCmd) removeTmp() {
	if err := s.tmpDir.remove(); err != nil && s.log != nil {
		fmt.Fprintf(s.log, "nsrun: %v\n", err)
	}
	s.tmpDir = nil
}

// signal sends sig to the init, through its pidfd where there is one so
// that a recycled pid can never be hit. The Landlock-only stage is asked to
// end the sandbox (ctlKill) instead of being sent SIGKILL, which would end
// it alone, once it has its spec (a byte before it would be read as the
// spec's).
func (s *sysCmd) signal(sig unix.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reaped {
		return os.ErrProcessDone
	}
	if s.direct && sig == unix.SIGKILL && s.specSent {
		if _, err := s.lifeline.Write([]byte{launch.CtlKill}); err == nil {
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
	if s.tracer != nil && s.waitPid == s.pid {
		// Only the tracer may wait for a process it traces.
		e := s.tracer.Ended()
		ws, s.rusage = e.Status, e.Rusage
	} else {
		for {
			_, err := unix.Wait4(s.waitPid, &ws, unix.WUNTRACED, &s.rusage)
			if err == unix.EINTR {
				continue
			}
			if err == nil && ws.Stopped() {
				continue
			}
			break
		}
	}
	s.mu.Lock()
	s.reaped, s.wstatus, s.ended = true, ws, time.Now()
	if s.backstop != nil {
		s.backstop.Stop()
	}
	if s.pidfd >= 0 {
		unix.Close(s.pidfd)
		s.pidfd = -1
	}
	s.mu.Unlock()
}

// next reads the init's next message, logging its steps on the way.
func (s *sysCmd) next() (launch.Msg, error) {
	for {
		var m launch.Msg
		err := launch.ReadFrame(s.status, &m, "status")
		if err != nil || m.Kind != launch.MsgLog {
			return m, err
		}
		if s.log != nil {
			fmt.Fprintf(s.log, "nsrun: init: %s\n", m.Msg)
		}
	}
}

// abort kills and reaps an init whose payload never started.
func (s *sysCmd) abort() {
	_ = s.signal(unix.SIGKILL)
	s.reap()
	_ = s.term.finish()
	s.stopNetwork(nil)
	_ = s.stdio.wait()
	s.finish()
}

func (s *sysCmd) finish() {
	if s.watcher != nil {
		s.watcher.Close()
	}
	s.killGroup()
	if s.listen != nil {
		s.listen.stop()
	}
	s.removeTmp()
	if s.kept != "" {
		_ = changes.Tidy(s.kept)
		s.keptLock.Close()
	}
	if s.cgroup != nil {
		if s.direct {
			s.cgroup.Kill()
		}
		s.cgroup.Remove()
	}
	close(s.done)
	close(s.release)
	s.lifeline.Close()
	s.statusFile.Close()
	if s.netSock != nil {
		s.netSock.Close()
	}
}

// takeListener takes the seccomp listener the init holds as fd and serves
// it; listen() on TCP sockets is then allowed on the ports of bind.
func (s *sysCmd) takeListener(fd int, bind []PortRange) error {
	pidfd := s.pidfd
	if pidfd < 0 {
		var err error
		if pidfd, err = unix.PidfdOpen(s.pid, 0); err != nil {
			return fmt.Errorf("listen() checks: pidfd_open of the init: %w", err)
		}
		defer unix.Close(pidfd)
	}
	listener, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			// Docker's default profile allows pidfd_getfd only with
			// CAP_SYS_PTRACE; without it listen() cannot be checked.
			return fmt.Errorf("--allow-bind: listen() checks need pidfd_getfd, which is refused here (a container's seccomp profile without CAP_SYS_PTRACE?): %w", err)
		}
		return fmt.Errorf("listen() checks: take the seccomp listener (pidfd_getfd): %w", err)
	}
	if s.listen, err = superviseListen(listener, bind); err != nil {
		unix.Close(listener)
		return fmt.Errorf("listen() checks: %w", err)
	}
	if _, err := s.lifeline.Write([]byte{launch.CtlListener}); err != nil {
		return fmt.Errorf("listen() checks: %w", err)
	}
	return nil
}

// wait waits for the payload to exit and every process of the sandbox to
// end, and for its output to be copied. It returns how the payload ended,
// and what copying its output met.
func (c *Cmd) wait() (*ExitError, error) {
	s := c.sys
	msg, msgErr := s.next()
	for msgErr == nil && msg.Kind == launch.MsgStopped {
		if s.term != nil {
			s.term.event(jobStopped, unix.Signal(msg.Signal))
		}
		msg, msgErr = s.next()
	}
	s.term.stopKeys()
	if s.watcher != nil {
		// The payload is gone; what is left of the sandbox dies with the
		// init, and the sweep after that catches anything it planted.
		// Watches removed now cost nothing when the descriptor closes.
		s.watcher.Unwatch()
	}
	s.reap()
	s.stopNetwork(c.report.Network)
	exited := msgErr == nil && msg.Kind == launch.MsgExit
	if exited {
		s.addRefusals(msg.Refusals, msg.RefusalsDropped)
	}
	if s.denials != nil {
		c.report.Denials, c.report.DenialsDropped = s.denials.list()
	}
	if exited && msg.Usage != nil {
		s.usage = msg.Usage
	}
	c.report.Usage = s.usageReport()
	if s.cgroup != nil {
		c.reportLimits(s.cgroup.Events())
	}
	// Nothing of the sandbox is left to race the last look.
	s.killGroup()
	appeared := s.sweepAbsent(c)
	if s.git != nil {
		c.report.NestedRepositories = c.nestedRepositories(s.git)
	}
	ioErr := s.term.finish()
	cut := c.awaitIO(s.stdio.copied(), s.stdio.cut)
	if err := s.stdio.wait(); ioErr == nil && err != nil {
		ioErr = fmt.Errorf("nsrun: copy output: %w", err)
	}
	if cut {
		// Closing the pipes is what made the copy fail, if it did.
		ioErr = ErrWaitDelay
	}
	c.logf("sandbox gone at %.2f ms", ms(time.Since(s.started)))
	s.finish()
	c.report.TimingsMS.Run = ms(time.Since(s.running))

	ee := &ExitError{}
	switch {
	case exited:
		ee.Code, ee.Signal = msg.Code, msg.Signal
	case s.wstatus.Signaled():
		ee.Code, ee.Signal = 128+int(s.wstatus.Signal()), int(s.wstatus.Signal())
	default:
		ee.Code = s.wstatus.ExitStatus()
	}
	if appeared != "" {
		ee.Appeared = appeared
		if ee.Code == 0 {
			ee.Code = 1
		}
	}
	return ee, ioErr
}

// Signal sends sig to the sandbox's init, which passes it on to the
// payload.
func (c *Cmd) Signal(sig os.Signal) error {
	if !c.running {
		return errors.New("nsrun: Signal before Start")
	}
	ss, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("nsrun: unsupported signal %v", sig)
	}
	if ss == syscall.SIGWINCH && c.sys.term != nil {
		// The pty follows the caller's terminal; the kernel tells the
		// payload when the size changed.
		return c.sys.term.resync()
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

// control tells the payload's supervisor (the init, or the Landlock-only
// stage) what nsrun's job did, so it moves the payload to its pty's
// foreground or background and continues it.
func (s *sysCmd) control(b byte) {
	_, _ = s.lifeline.Write([]byte{b})
}
