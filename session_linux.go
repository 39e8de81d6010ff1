package nsrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/internal/session"
)

// sysSession is the running session: the Cmd of its init, which holds the
// sandbox, and the channel to the init.
type sysSession struct {
	init *Cmd
	conn *session.Conn
	env  []string // the session's environment, as the init was given it
	base Report   // what the session enforces, copied once it was built
	done chan struct{}
	err  error // the init's Wait, once done is closed

	log     session.Log       // every command, for the session's report
	endOnce sync.Once         // the first end says why, and what it killed
	reason  string            // why it ended (SessionReport.Ended)
	killed  []session.Process // what was left running when it was ended
	endedAt time.Time         // set before done is closed
	initPid int               // the init's pid as this process sees it
}

// cmdSession is what a Cmd knows of its session: for the init's Cmd, that
// it starts a session (initOf); for a command's, the session and the
// command once started.
type cmdSession struct {
	s       *Session
	initOf  bool
	env     []string   // set by the init's start: the lowered environment
	mu      sync.Mutex // exec, which the watch reads
	exec    *session.Exec
	rec     int // its index in the session's log
	streams *sandbox.Streams
	begun   chan struct{}
	done    chan struct{}

	// The init's, with TraceDenials: the denials of each command's
	// process group (by its pid inside), until the command takes them.
	denialsMu sync.Mutex
	byGroup   map[int]*denialLog
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
	// The context ends the session through end, which lists what it kills.
	c := CommandContext(context.WithoutCancel(ctx), p, "nsrun-session")
	c.TTY, c.ExtraFiles = TTYNever, []*os.File{child}
	c.session = &cmdSession{initOf: true, byGroup: map[int]*denialLog{}}
	if err := c.Start(); err != nil {
		parent.Close()
		return nil, err
	}
	s := &Session{policy: p, started: time.Now()}
	s.sys = &sysSession{init: c, conn: session.NewConn(parent), env: c.session.env, done: make(chan struct{})}
	// A deep copy: the init's Wait writes its report, commands read this.
	if b, err := json.Marshal(c.Report()); err == nil {
		_ = json.Unmarshal(b, &s.sys.base)
	}
	if c.Process != nil {
		s.sys.initPid = c.Process.Pid // Wait releases the Process
	}
	go func() {
		s.sys.err = c.Wait()
		s.sys.endOnce.Do(func() { s.sys.reason = "ended" })
		s.sys.endedAt = time.Now()
		s.sys.conn.Close()
		close(s.sys.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.end(map[bool]string{true: "timeout", false: "cancelled"}[errors.Is(ctx.Err(), context.DeadlineExceeded)])
		case <-s.sys.done:
		}
	}()
	return s, nil
}

func (s *Session) close() error {
	if s.sys == nil {
		return errNoSession
	}
	return s.end("close")
}

// end ends the session, the first call saying why and listing what was
// still running, and waits until it is gone.
func (s *Session) end(reason string) error {
	sys := s.sys
	sys.endOnce.Do(func() {
		sys.reason = reason
		if sys.initPid > 0 {
			sys.killed = session.Processes(sys.initPid)
		}
		if sys.conn.Stop() != nil {
			_ = sys.init.stopper().kill()
		}
	})
	select {
	case <-sys.done:
	case <-time.After(5 * time.Second):
		_ = sys.init.stopper().kill()
		<-sys.done
	}
	var ee *ExitError
	if errors.As(s.sys.err, &ee) && ee.Code == 0 {
		return nil
	}
	return s.sys.err
}

func (s *Session) report() *Report {
	if s.sys == nil {
		return &Report{}
	}
	select {
	case <-s.sys.done:
		r := s.sys.init.Report()
		r.Session = s.sys.sessionReport()
		if r.Denials != nil {
			r.Denials, r.DenialsDropped = s.sys.init.session.leftDenials(r.Denials, r.DenialsDropped)
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
		return checkSessionTTY(c.Stdin)
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
	cs.rec = sys.log.Begin(c.Args, front.From(c.ctx).ForWhom(), started)
	fail := func(err error) error {
		sys.log.End(cs.rec, ExitCode(err), 0, err.Error(), time.Now())
		c.report.notBuilt(c.backend(), err)
		return err
	}
	streams, err := sandbox.NewStreams(c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return fail(err)
	}
	env := c.Env
	if env == nil {
		env = sys.env
	}
	cs.begun, cs.done = make(chan struct{}), make(chan struct{})
	c.startWatch(cs, cs.begun, cs.done)
	ex, err := sys.conn.Start(c.Args, env, c.Dir, streams.Files(), c.TTY == TTYAlways)
	streams.Started()
	if err != nil {
		streams.Abort()
		close(cs.done)
		var se *session.StartError
		switch {
		case errors.As(err, &se):
			err = &SetupError{Code: se.Code, Msg: se.Msg}
		case errors.Is(err, session.ErrClosed):
			err = &SetupError{Code: ExitSetup, Msg: "nsrun: the session has ended"}
		}
		return fail(err)
	}
	cs.mu.Lock()
	cs.exec, cs.streams = ex, streams
	cs.mu.Unlock()
	sys.log.Running(cs.rec, ex.Pid)
	if timedOut, ctxErr := c.end.outcome(); timedOut || ctxErr != nil {
		_ = cs.kill() // ended while it was being started
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
	r := cs.exec.Wait()
	cs.s.sys.log.End(cs.rec, r.Code, r.Signal, "", time.Now())
	if c.Policy.TraceDenials {
		// Its group's calls were all traced before it was reaped.
		c.report.Denials, c.report.DenialsDropped = cs.s.sys.init.session.takeDenials(cs.exec.Pid).list()
	}
	close(cs.done)
	cut, ioErr := cs.streams.Finish(c.awaitIO)
	if cut {
		ioErr = ErrWaitDelay
	}
	c.report.TimingsMS.Run = ms(time.Since(c.sys.started))
	c.report.Usage = &UsageReport{UserMS: float64(r.Usage.UserUS) / 1000, SystemMS: float64(r.Usage.SystemUS) / 1000,
		MaxRSSKiB: r.Usage.MaxRSSKiB, WallMS: c.report.TimingsMS.Run, Source: "rusage"}
	return &ExitError{Code: r.Code, Signal: r.Signal}, ioErr
}

// The stopper of a session's command ends its process group.
func (cs *cmdSession) terminate() error { return cs.signal(unix.SIGTERM) }
func (cs *cmdSession) kill() error      { return cs.signal(unix.SIGKILL) }

func (cs *cmdSession) signal(sig unix.Signal) error {
	cs.mu.Lock()
	ex := cs.exec
	cs.mu.Unlock()
	if ex == nil {
		return os.ErrProcessDone
	}
	return ex.Signal(sig)
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
	return s.sys.done
}

// checkSessionTTY accepts, for a command that gets a terminal of its own
// (TTYAlways), a Stdin that is a terminal made for it (session.CheckTTY).
func checkSessionTTY(stdin io.Reader) error {
	f, _ := stdin.(*os.File)
	if err := session.CheckTTY(f); err != nil {
		return &SetupError{Code: ExitSetup, Msg: "TTYAlways in a session: " + err.Error()}
	}
	return nil
}

// sessionReport is the session's own part of its report, once it ended.
func (sys *sysSession) sessionReport() *SessionReport {
	recs, dropped := sys.log.Records()
	r := &SessionReport{Ended: sys.reason, Commands: make([]SessionCommand, 0, len(recs)), CommandsDropped: dropped, Killed: []SessionProcess{}}
	for _, rec := range recs {
		ended, code, sig := rec.Ended, rec.Code, rec.Signal
		if ended.IsZero() { // still running when the session's end killed it
			ended, code, sig = sys.endedAt, 128+int(unix.SIGKILL), int(unix.SIGKILL)
		}
		c := SessionCommand{Command: rec.Args, For: rec.For, Pid: rec.Pid, Started: rec.Started, Error: rec.Error,
			Exit: ExitReport{Code: code}, DurationMS: ms(ended.Sub(rec.Started))}
		if sig > 0 {
			c.Exit.Signal = &sig
		}
		r.Commands = append(r.Commands, c)
	}
	for _, p := range sys.killed {
		r.Killed = append(r.Killed, SessionProcess{Pid: p.Pid, Command: p.Args})
	}
	return r
}

// addDenial files a denial of the process host (a pid as nsrun sees it)
// under its process group inside, that of the command it belongs to, if
// cs is a session's init; false for any other Cmd.
func (cs *cmdSession) addDenial(host int, d Denial) bool {
	if cs == nil || !cs.initOf {
		return false
	}
	pgid := session.InnerPgid(host)
	if pgid <= 1 {
		return false // the session's, not a command's
	}
	cs.denialsMu.Lock()
	l := cs.byGroup[pgid]
	if l == nil {
		l = newDenialLog()
		cs.byGroup[pgid] = l
	}
	cs.denialsMu.Unlock()
	l.add(d)
	return true
}

// takeDenials hands over the denials of the process group pgid: those of
// the command that leads it, which has ended. What its group does later
// is the session's.
func (cs *cmdSession) takeDenials(pgid int) *denialLog {
	cs.denialsMu.Lock()
	defer cs.denialsMu.Unlock()
	l := cs.byGroup[pgid]
	delete(cs.byGroup, pgid)
	if l == nil {
		l = newDenialLog()
	}
	return l
}

// leftDenials adds to the session's own denials those no command took:
// of processes that outlived their command, or left its group.
func (cs *cmdSession) leftDenials(own []Denial, dropped int) ([]Denial, int) {
	all := newDenialLog()
	for _, d := range own {
		all.addCount(d, d.Count)
	}
	all.drop(dropped)
	cs.denialsMu.Lock()
	defer cs.denialsMu.Unlock()
	for _, l := range cs.byGroup {
		entries, n := l.list()
		for _, d := range entries {
			all.addCount(d, d.Count)
		}
		all.drop(n)
	}
	return all.list()
}
