package sandbox

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/rawinit"
	"github.com/nsrun/nsrun/netproxy"
	"github.com/nsrun/nsrun/ptrace"
)

// Sandbox is a running sandbox: its first process (the init, or the
// Landlock-only stage) and the pipes to it, and what watches it.
//
// Locking: mu guards the fields below it, which the goroutines that end a
// sandbox from outside (the caller's watch of its timeout and context,
// Signal and Kill from any goroutine, the watcher of names kept absent, the
// kill backstop's timer) read while the caller's goroutine starts, waits
// for and reaps it. Every use of mu is in this file. The fields above mu
// are written only by the caller's goroutine (New, Fork, Send, Await,
// Wait, Finish, Abort), before any other goroutine reads them, or are
// read only by it; pidfd is the one exception: Fork sets it before any
// other goroutine exists, and reap closes it under mu. The terminal and
// the standard streams have locks of their own (terminal.mu, stdio.mu).
type Sandbox struct {
	log     io.Writer // nsrun's steps; nil: none
	started time.Time // when the caller began, for the log's times
	direct  bool      // the Landlock-only stage, not an init in namespaces
	hostUID int       // to explain a failed fork

	launch     *startup   // the first process's start: its pipes' child ends until Fork
	forked     bool       // Fork started the first process
	pid        int        // the init (or the Landlock-only stage)
	waitPid    int        // the child to reap: pid, or the fork helper that forked it
	helperHold *os.File   // keeps the fork helper from reaping the init yet
	pidfd      int        // -1 when the kernel gave none
	stageArgs  []string   // the stage's arguments after its name
	extra      []*os.File // the ExtraFiles

	rawPending  bool          // the raw init asked for: Send starts the init (rawinit_linux.go)
	rawInit     *rawinit.Init // the raw init, once started
	shareMemory bool          // Attr.ShareMemory
	noShareWhy  string        // why the init gets a copy all the same (noShareWhy)

	stdio      *stdio
	lifeline   *os.File // write end of the spec pipe; the init dies when it closes
	status     *bufio.Reader
	statusFile *os.File
	release    chan struct{}     // lets the thread that forked the init go
	done       chan struct{}     // closed when the sandbox is gone
	begun      chan struct{}     // closed once the payload has started
	onStarted  func(*os.Process) // Hooks.Started
	running    time.Time         // when the payload started
	rusage     unix.Rusage       // of the child reaped: the init, the helper or the Landlock-only payload
	usage      *launch.Usage     // what the init counted of everything it reaped
	term       *terminal         // the payload's pty, nil without one
	cgroup     *cgroup.Group
	tmpDir     *TmpDir            // removed once the sandbox is gone
	kept       string             // --keep-changes, whose work directories are emptied then
	keptLock   *os.File           // held on kept until then
	allowBind  []launch.PortRange // the ports listen() is checked against
	listen     *listenSupervisor  // serves the guard's listen() calls
	watcher    *absent.Watcher    // names kept absent, watched from here
	netSock    *os.File           // nsrun's end of the init's socket factory (a filtered network)
	inside     *netproxy.Inside   // the sandbox's network namespace, through netSock
	net        *netproxy.Server   // the filtered network's server
	tracer     *ptrace.Tracer     // --trace-denials: reaps the process it traces

	mu        sync.Mutex
	reaped    bool            // after it pid may name another process
	wstatus   unix.WaitStatus // how the first process ended, once reaped
	ended     time.Time       // when it was reaped
	specSent  bool            // the first process has its spec: control bytes may follow
	payload   int             // the payload's pid as its supervisor sees it, once started
	process   *os.Process     // the payload, once it started
	killedFor string          // what appeared, when the watcher ended the sandbox
	backstop  *time.Timer     // kills the init if it does not end after the payload was killed
}

// Terminate sends SIGTERM to the payload through its supervisor (the
// init, the Landlock-only stage), or to the payload itself.
func (s *Sandbox) Terminate() error {
	return s.signal(unix.SIGTERM)
}

// Signal sends sig to the sandbox's first process, which passes it on to
// the payload. SIGWINCH, with a pty, copies the caller's terminal's size
// to the pty instead: the kernel tells the payload when it changed.
func (s *Sandbox) Signal(sig unix.Signal) error {
	if sig == unix.SIGWINCH && s.term != nil {
		return s.term.resync()
	}
	return s.signal(sig)
}

// killBackstop is how long the supervisor has to end the sandbox and
// report after its payload was killed, before it is killed itself.
const killBackstop = 500 * time.Millisecond

// Kill ends the whole sandbox. Once the payload has started it kills the
// payload: its supervisor (the init, the Landlock-only stage) then kills
// and reaps every other process at once and reports what they all used,
// which a killed supervisor could not; the supervisor is killed too if it
// has not ended shortly after (killHard). Before that, and without a
// handle on the payload, it kills the init, which ends every process of
// its PID namespace, or asks the Landlock-only stage to end the sandbox
// (signal).
func (s *Sandbox) Kill() error {
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
func (s *Sandbox) killHard() {
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
func (s *Sandbox) killGroup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.direct && s.payload > 0 {
		_ = unix.Kill(-s.payload, unix.SIGKILL)
	}
}

// signal sends sig to the init, through its pidfd where there is one so
// that a recycled pid can never be hit. The Landlock-only stage is asked to
// end the sandbox (ctlKill) instead of being sent SIGKILL, which would end
// it alone, once it has its spec (a byte before it would be read as the
// spec's).
func (s *Sandbox) signal(sig unix.Signal) error {
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
func (s *Sandbox) reap() {
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

// waitStatus is how the first process ended, and when, once reaped.
func (s *Sandbox) waitStatus() (unix.WaitStatus, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wstatus, s.ended
}

// specIsSent records that the first process has its spec.
func (s *Sandbox) specIsSent() {
	s.mu.Lock()
	s.specSent = true
	s.mu.Unlock()
}

// payloadStarted records the payload's pid as its supervisor sees it.
func (s *Sandbox) payloadStarted(pid int) {
	s.mu.Lock()
	s.payload = pid
	s.mu.Unlock()
}

// payloadFound records the payload as this process holds it.
func (s *Sandbox) payloadFound(p *os.Process) {
	s.mu.Lock()
	s.process = p
	s.mu.Unlock()
}

// endFor ends the sandbox because the watcher found f, and reports
// whether f is the first such find.
func (s *Sandbox) endFor(f absent.Found) bool {
	s.mu.Lock()
	first := s.killedFor == ""
	if first {
		s.killedFor = describeFound(f)
	}
	s.mu.Unlock()
	_ = s.signal(unix.SIGKILL)
	s.killGroup()
	return first
}

// endedFor says what the watcher ended the sandbox for, "" if it did not.
func (s *Sandbox) endedFor() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killedFor
}
