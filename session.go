package nsrun

import (
	"context"
	"sync"
	"time"
)

// Session is one sandbox that lives across many commands: they share its
// filesystem view, its /tmp, its network, its cgroup limits and its
// processes, so a server one command starts in the background answers the
// next. Every command runs under exactly the session's confinement (its
// namespaces, Landlock domain, seccomp filter, no capabilities, no new
// privileges) as a child of the session's init; nothing a Cmd says can
// widen it. Safe for concurrent use. Linux only; see docs/SESSIONS.md.
type Session struct {
	policy  *Policy
	started time.Time

	mu     sync.Mutex
	closed bool
	//lint:ignore U1000 the Linux backend's; no other system makes a Session
	sys *sysSession
}

// StartSession builds a sandbox under p and returns once it is ready. The
// session ends with Close, or when ctx is done. It refuses what a
// session cannot give, IsolationLandlock (a *SetupError; see
// docs/SESSIONS.md), and returns Start's errors for the rest. With
// TraceDenials, each command's report has its own denials and the
// session's report those of processes that outlived their command.
func StartSession(ctx context.Context, p *Policy) (*Session, error) {
	if p == nil {
		p = &Policy{}
	}
	return startSession(ctx, p)
}

// Command returns a Cmd that runs name with args in the session, used as
// any Cmd (Run, Output, pipes, Timeout, Report). Its Policy is the
// session's and must be left so; Env nil means the session's
// environment, and Dir empty its working directory. Timeout, the context
// and Signal reach the command's process group, not the session.
// TTYAlways means that Stdin is a terminal made for the command (a pty's
// slave, not this process's controlling terminal), which becomes its
// controlling terminal in a session of its own; the caller relays it.
// ExtraFiles and WindowSize are refused.
func (s *Session) Command(name string, args ...string) *Cmd {
	c := Command(s.policy, name, args...)
	c.session = &cmdSession{s: s}
	return c
}

// CommandContext is Command with a context whose end ends the command (as
// CommandContext's ends a sandbox).
func (s *Session) CommandContext(ctx context.Context, name string, args ...string) *Cmd {
	c := CommandContext(ctx, s.policy, name, args...)
	c.session = &cmdSession{s: s}
	return c
}

// Close ends every process of the session and removes what it made; it
// returns once all is gone. Commands still running end with SIGKILL.
// Report then has the session's report (Report.Session).
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	return s.close()
}

// Report is what the session enforces, as a one-shot run's report says
// it. Once the session has ended (Done is closed), it has how it ended and
// what it used in all, and Session: every command, what was still
// running and killed, and why it ended.
func (s *Session) Report() *Report { return s.report() }

// Started is when the session was ready.
func (s *Session) Started() time.Time { return s.started }

// Warnings are what nsrun has warned of for the session so far, one line
// each without the "nsrun: warning: " a Cmd's Warnings writer gets: what
// the session's start found (a rule through a symlink, a git file it
// cannot protect), then what its end found (a repository a command made).
// Its report at the end (Report.Session.Warnings) has them all.
func (s *Session) Warnings() []string { return s.warnings() }

// Environ is the environment the session's commands get when their Env
// is nil.
func (s *Session) Environ() []string { return s.environ() }

// Done is closed once the session has ended: by Close, by its context, or
// by itself (its init ended).
func (s *Session) Done() <-chan struct{} { return s.done() }
