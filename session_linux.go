package nsrun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/session"
)

// sysSession is the running session: the Cmd of its init, which holds the
// sandbox, and its life (internal/session.Life).
type sysSession struct {
	init *Cmd
	life *session.Life
	warn *session.Lines // the init's Cmd's warnings
	env  []string       // the session's environment, as the init was given it
	base Report         // what the session enforces, copied once it was built
}

// cmdSession is what a Cmd knows of its session: for the init's Cmd, that
// it starts a session (initOf); for a command's, the session and the
// command once started.
type cmdSession struct {
	s      *Session
	initOf bool
	env    []string         // set by the init's start: the lowered environment
	cmd    *session.Command // set before the watch starts
	begun  chan struct{}
	done   chan struct{}
	// The init's, with TraceDenials: each command's denials.
	denials *session.Groups[*plan.DenialLog]
}

func startSession(ctx context.Context, p *Policy) (*Session, error) {
	if p.Isolation == IsolationLandlock {
		return nil, &SetupError{Code: ExitSetup, Msg: "IsolationLandlock: " + session.NoLandlockOnly}
	}
	parent, child, err := session.Pair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	// The context ends the session through its life, which lists what
	// it kills.
	c := CommandContext(context.WithoutCancel(ctx), p, "nsrun-session")
	c.TTY, c.ExtraFiles = TTYNever, []*os.File{child}
	// A session has no stderr of its own: what a one-shot run would warn
	// of is kept for Warnings and the report.
	warn := session.NewLines("nsrun: warning: ")
	c.Warnings = warn
	c.session = &cmdSession{initOf: true, denials: session.NewGroups(func() *plan.DenialLog { return plan.NewDenialLog(maxDenials) })}
	if err := c.Start(); err != nil {
		parent.Close()
		return nil, err
	}
	s := &Session{policy: p, started: time.Now()}
	s.sys = &sysSession{init: c, env: c.session.env, warn: warn}
	// A deep copy: the init's Wait writes its report, commands read this.
	if b, err := json.Marshal(c.Report()); err == nil {
		_ = json.Unmarshal(b, &s.sys.base)
	}
	pid := 0
	if c.Process != nil {
		pid = c.Process.Pid // Wait releases the Process
	}
	s.sys.life = session.Live(ctx, session.NewConn(parent), pid, c.Wait, func() error { return c.stopper().Kill() })
	return s, nil
}

func (s *Session) close() error {
	if s.sys == nil {
		return errNoSession
	}
	err := s.sys.life.End("close")
	if ee := (*ExitError)(nil); errors.As(err, &ee) && ee.Code == 0 {
		return nil
	}
	return err
}

func (s *Session) report() *Report {
	if s.sys == nil {
		return &Report{}
	}
	select {
	case <-s.sys.life.Done():
		r := s.sys.init.Report()
		r.Session = s.sys.sessionReport()
		if r.Denials != nil {
			r.Denials, r.DenialsDropped = s.sys.init.session.leftDenials()
		}
		return r
	default:
		r := s.sys.base
		return &r
	}
}

var errNoSession = errors.New("nsrun: the Session was not made by StartSession")

// inSession says the Cmd is a command of a session.
func (c *Cmd) inSession() bool { return c.session != nil && !c.session.initOf }

// checkSession refuses, before anything starts, what a command of a
// session cannot have.
func (c *Cmd) checkSession() error {
	cs := c.session
	if cs == nil || cs.initOf {
		return nil
	}
	switch {
	case cs.s == nil || cs.s.sys == nil:
		return errNoSession
	case c.Policy != cs.s.policy:
		return &SetupError{Code: ExitSetup, Msg: "a session's command runs under the session's policy: Cmd.Policy cannot be changed"}
	case c.WindowSize != (WindowSize{}):
		return &SetupError{Code: ExitSetup, Msg: "a session's command takes no WindowSize: with TTYAlways, size the terminal given as Stdin"}
	case c.TTY == TTYAlways:
		if f, _ := c.Stdin.(*os.File); session.CheckTTY(f) != nil {
			return &SetupError{Code: ExitSetup, Msg: "TTYAlways in a session: " + session.CheckTTY(f).Error()}
		}
	case len(c.ExtraFiles) > 0:
		return &SetupError{Code: ExitSetup, Msg: "a session's command takes no ExtraFiles"}
	}
	return nil
}

// startInSession starts the command in its session's init.
func (c *Cmd) startInSession() error {
	cs, sys := c.session, c.session.s.sys
	started := time.Now()
	c.report = sys.base
	c.report.Exit, c.report.Usage, c.report.TimingsMS = ExitReport{}, nil, TimingsReport{}
	fail := func(err error) error {
		c.report.notBuilt(c.backend(), err)
		return err
	}
	cmd, err := session.NewCommand(c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return fail(err)
	}
	env := c.Env
	if env == nil {
		env = sys.env
	}
	cs.cmd, cs.begun, cs.done = cmd, make(chan struct{}), make(chan struct{})
	c.startWatch(cs, cs.begun, cs.done)
	err = cmd.Start(sys.life, c.Args, env, c.Dir, c.TTY == TTYAlways, front.From(c.ctx).ForWhom())
	if se := (*session.StartError)(nil); errors.As(err, &se) {
		close(cs.done)
		return fail(&SetupError{Code: se.Code, Msg: se.Msg})
	}
	if timedOut, ctxErr := c.end.Outcome(); timedOut || ctxErr != nil {
		_ = cs.Kill() // ended while it was being started
	}
	c.report.TimingsMS.Setup = ms(time.Since(started))
	c.report.Dir = c.Dir
	c.sys = &sysCmd{started: time.Now()}
	close(cs.begun)
	return nil
}

// waitInSession waits for the command and its output.
func (c *Cmd) waitInSession() (*ExitError, error) {
	cs := c.session
	r := cs.cmd.Wait()
	if c.Policy.TraceDenials {
		// Its group's calls were all traced before it was reaped.
		c.report.Denials, c.report.DenialsDropped = denialsOf(cs.s.sys.init.session.denials.Take(cs.cmd.Pid()))
	}
	close(cs.done)
	cut, ioErr := cs.cmd.Finish(c.awaitIO)
	if cut {
		ioErr = ErrWaitDelay
	}
	c.report.TimingsMS.Run = ms(time.Since(c.sys.started))
	c.report.Usage = &UsageReport{UserMS: float64(r.Usage.UserUS) / 1000, SystemMS: float64(r.Usage.SystemUS) / 1000,
		MaxRSSKiB: r.Usage.MaxRSSKiB, WallMS: c.report.TimingsMS.Run, Source: "rusage"}
	return &ExitError{Code: r.Code, Signal: r.Signal}, ioErr
}

// The stopper of a session's command ends its process group.
func (cs *cmdSession) Terminate() error { return cs.signal(unix.SIGTERM) }
func (cs *cmdSession) Kill() error      { return cs.signal(unix.SIGKILL) }

func (cs *cmdSession) signal(sig unix.Signal) error {
	if cs.cmd == nil {
		return os.ErrProcessDone
	}
	return cs.cmd.Signal(sig)
}

func (s *Session) environ() []string {
	if s.sys == nil {
		return nil
	}
	return append([]string{}, s.sys.env...)
}

func (s *Session) done() <-chan struct{} {
	if s.sys == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return s.sys.life.Done()
}

// sessionReport is the session's own part of its report, once it ended.
func (sys *sysSession) sessionReport() *SessionReport {
	reason, _, killed := sys.life.Ended()
	recs, dropped := sys.life.Commands()
	r := &SessionReport{Ended: reason, Commands: make([]SessionCommand, 0, len(recs)), CommandsDropped: dropped, Killed: []SessionProcess{}}
	for _, rec := range recs {
		c := SessionCommand{Command: rec.Args, For: rec.For, Pid: rec.Pid, Started: rec.Started, Error: rec.Error,
			Exit: ExitReport{Code: rec.Code}, DurationMS: ms(rec.Ended.Sub(rec.Started))}
		if rec.Signal > 0 {
			c.Exit.Signal = &rec.Signal
		}
		r.Commands = append(r.Commands, c)
	}
	for _, p := range killed {
		r.Killed = append(r.Killed, SessionProcess{Pid: p.Pid, Command: p.Args})
	}
	r.Warnings = sys.warn.All()
	return r
}

func (s *Session) warnings() []string {
	if s.sys == nil {
		return nil
	}
	return s.sys.warn.All()
}

// addDenial files a denial of the process host (a pid as nsrun sees it)
// under the command it belongs to, if cs is a session's init; false for
// any other Cmd.
func (cs *cmdSession) addDenial(host int, d plan.Denial) bool {
	if cs != nil && cs.initOf {
		cs.denials.For(host).Add(d)
	}
	return cs != nil && cs.initOf
}

// leftDenials are the session's own: those no command took, of processes
// that outlived their command or left its group.
func (cs *cmdSession) leftDenials() ([]Denial, int) {
	return denialsOf(plan.Merge(maxDenials, cs.denials.Rest()))
}
