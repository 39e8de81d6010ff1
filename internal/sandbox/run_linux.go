package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/fdpass"
	"github.com/nsrun/nsrun/internal/launch"
)

// Send readies what watches the sandbox (its cgroup v1 membership, the
// watcher of names kept absent, the tracer, the caller's watch), then
// writes the spec, told where the pty and the ExtraFiles are, and starts
// the filtered network. The caller aborts the sandbox on an error; a
// cgroup the first process cannot be moved into is the cgroup package's
// error.
func (s *Sandbox) Send(spec *launch.Spec, h *Hooks) error {
	s.tmpDir, s.kept, s.keptLock, s.allowBind = h.TmpDir, h.Kept, h.KeptLock, h.AllowBind
	s.onStarted = h.Started
	if s.term != nil {
		spec.TTY = s.term.spec(s.term.foregroundAtStart())
	}
	spec.ExtraFiles = s.launch.extraAt
	raw, err := s.startDeferred(spec)
	if err != nil {
		return err
	}
	var b []byte
	if !raw {
		if b, err = launch.EncodeSpec(spec); err != nil {
			return err
		}
	}
	// With cgroup v1 the init must be moved into its cgroups before it
	// reads the spec (and so before the payload exists).
	if s.cgroup != nil {
		if err := s.cgroup.Enter(s.pid); err != nil {
			return err
		}
	}
	if err := s.watchAbsent(h.Absent); err != nil {
		return err
	}
	if h.Trace != nil {
		if err := s.trace(h.Trace, h.Refused); err != nil {
			return err
		}
	}
	s.releaseHelper()
	if h.Watch != nil {
		h.Watch(s.begun, s.done)
	}
	// The init reads the whole spec before it writes anything, so writing
	// it here cannot deadlock; an init that died makes it fail with EPIPE.
	if _, err := s.lifeline.Write(b); len(b) > 0 && err != nil {
		return &Error{Code: launch.ExitSetup, Op: "launch.Send spec to init", Err: err}
	}
	s.specIsSent()
	if h.Network == nil {
		return nil
	}
	if err := s.startNetwork(h.Network); err != nil {
		setupErr := &Error{Code: launch.ExitSetup, Op: "network", Err: err}
		// An init that ended first has said why.
		if errors.Is(err, fdpass.ErrClosed) {
			if msg, merr := s.next(); merr == nil && msg.Kind == launch.MsgError {
				setupErr = errorOf(msg)
			}
		}
		return setupErr
	}
	return nil
}

// Await reads the first process's messages until the payload has started
// (taking the seccomp listeners it hands over), then starts the
// terminal's relay and lets the supervisor reap. It returns the payload.
// The caller aborts the sandbox on an error.
func (s *Sandbox) Await() (*os.Process, error) {
	warmPidfd()
	msg, err := s.next()
	for err == nil && msg.Kind == launch.MsgListener {
		if err = s.takeListener(msg.Code); err != nil {
			return nil, &Error{Code: launch.ExitSetup, Err: err}
		}
		msg, err = s.next()
	}
	// A name kept absent appeared and the sandbox was ended before the
	// init could say the payload had started: it ran, and Wait says what
	// it planted; it is not a sandbox that could not be built.
	endedEarly := errors.Is(err, io.EOF) && s.endedFor() != ""
	if !endedEarly && (err != nil || msg.Kind != launch.MsgStarted) {
		if err == nil && msg.Kind == launch.MsgError {
			return nil, errorOf(msg)
		}
		ws, ended := s.waitStatus()
		return nil, &Error{Code: launch.ExitSetup, Msg: initEnded(ws, !ended.IsZero())}
	}
	if s.term != nil {
		if err := s.term.begin(s.control); err != nil {
			return nil, err
		}
	}
	s.payloadStarted(msg.Pid)
	s.running = time.Now()
	var p *os.Process
	if endedEarly {
		p = processOf(s.pid, func(int) bool { return s.signal(0) == nil })
	} else {
		p = s.findPayload(msg)
	}
	s.payloadFound(p)
	if !endedEarly {
		s.control(launch.CtlStarted) // the supervisor may reap the payload now
	}
	if s.onStarted != nil {
		s.onStarted(p)
	}
	close(s.begun)
	return p, nil
}

// warmPidfd has the os package check, once per process, that pidfds work
// (it forks a child to see), while the first process is still booting:
// findPayload's os.FindProcess would check then, and the supervisor
// reaps nothing, not even a payload that has already exited, until
// findPayload is done.
func warmPidfd() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Release()
	}
}

// takeListener takes the seccomp listener the init holds as fd and serves
// it; listen() on TCP sockets is then allowed on the ports of AllowBind.
func (s *Sandbox) takeListener(fd int) error {
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
			return errs.New("%s: listen() checks need pidfd_getfd, which is refused here (a container's seccomp profile without CAP_SYS_PTRACE?): %w", errs.AllowBind, err)
		}
		return fmt.Errorf("listen() checks: take the seccomp listener (pidfd_getfd): %w", err)
	}
	if s.listen, err = superviseListen(listener, s.allowBind); err != nil {
		unix.Close(listener)
		return fmt.Errorf("listen() checks: %w", err)
	}
	if _, err := s.lifeline.Write([]byte{launch.CtlListener}); err != nil {
		return fmt.Errorf("listen() checks: %w", err)
	}
	return nil
}

// next reads the init's next message, logging its steps on the way.
func (s *Sandbox) next() (launch.Msg, error) {
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

// control tells the payload's supervisor (the init, or the Landlock-only
// stage) what nsrun's job did, so it moves the payload to its pty's
// foreground or background and continues it.
func (s *Sandbox) control(b byte) {
	_, _ = s.lifeline.Write([]byte{b})
}

// initEnded says that the first process ended before the payload
// started, with how it ended where it has been reaped already (it usually
// has not: its status pipe closes first).
func initEnded(ws unix.WaitStatus, reaped bool) string {
	msg := "sandbox init ended before the payload started"
	if reaped {
		msg += " (" + describeWait(ws) + ")"
	}
	return msg
}

func describeWait(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + unix.SignalName(ws.Signal())
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}
