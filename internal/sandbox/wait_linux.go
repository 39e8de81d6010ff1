package sandbox

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/changes"
	"github.com/nsrun/nsrun/internal/launch"
)

// Wait waits for the payload to exit and every process of the sandbox to
// end, and returns how the payload ended and what the sandbox used. The
// payload's output may still be being copied: Finish waits for it and
// releases the rest.
func (s *Sandbox) Wait() *End {
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
	e := &End{}
	e.Served, e.Connections, e.Denied = s.stopNetwork()
	exited := msgErr == nil && msg.Kind == launch.MsgExit
	if exited {
		e.Refusals, e.RefusalsDropped = msg.Refusals, msg.RefusalsDropped
	}
	if exited && msg.Usage != nil {
		s.usage = msg.Usage
	}
	e.Usage = s.usageReport()
	if s.cgroup != nil {
		ev := s.cgroup.Events()
		e.Limits = &ev
	}
	// Nothing of the sandbox is left to race the last look.
	s.killGroup()
	e.Found, e.Appeared = s.sweepAbsent()
	ws, _ := s.waitStatus()
	switch {
	case exited:
		e.Code, e.Signal = msg.Code, msg.Signal
	case s.endedFor() != "":
		// The watcher ended the sandbox (SIGKILL), whatever the first
		// process made of it: the Landlock-only stage, asked to end it
		// before it could say the payload started, exits 125 itself.
		e.Code, e.Signal = 128+int(unix.SIGKILL), int(unix.SIGKILL)
	case ws.Signaled():
		e.Code, e.Signal = 128+int(ws.Signal()), int(ws.Signal())
	default:
		e.Code = ws.ExitStatus()
	}
	return e
}

// Finish ends the terminal's relay, waits for the payload's output to be
// copied (through awaitIO, which may cut the copies short and says whether
// it did), then releases what is left of the sandbox: its cgroup, its
// private temporary directory, the work directories of kept changes. It
// returns the first error writing the output.
func (s *Sandbox) Finish(awaitIO func(copied <-chan struct{}, cut func()) bool) (cut bool, err error) {
	err = s.term.finish()
	cut = awaitIO(s.stdio.copied(), s.stdio.cut)
	if werr := s.stdio.wait(); err == nil && werr != nil {
		err = fmt.Errorf("nsrun: copy output: %w", werr)
	}
	s.logf("sandbox gone at %.2f ms", ms(time.Since(s.started)))
	s.finish()
	return cut, err
}

// Abort ends a sandbox whose payload never started: its first process,
// if Fork started it, is killed and reaped, and everything is released.
func (s *Sandbox) Abort() {
	if !s.forked {
		s.dropDeferred()
		closeFiles(s.lifeline, s.statusFile, s.netSock)
		s.stdio.closeParentEnds()
		s.removeTmp()
		if s.cgroup != nil {
			s.cgroup.Remove()
		}
		if s.term != nil {
			s.term.close()
		}
		return
	}
	_ = s.signal(unix.SIGKILL)
	s.reap()
	_ = s.term.finish()
	s.stopNetwork()
	_ = s.stdio.wait()
	s.finish()
}

func (s *Sandbox) finish() {
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

func (s *Sandbox) removeTmp() {
	if err := s.tmpDir.Remove(); err != nil && s.log != nil {
		fmt.Fprintf(s.log, "nsrun: %v\n", err)
	}
	s.tmpDir = nil
}
