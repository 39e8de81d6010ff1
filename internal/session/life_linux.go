package session

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Life is a running session as its holder sees it: the channel to its
// init, every command asked for, and its end: why, when, and what was
// still running then. Safe for concurrent use.
type Life struct {
	Conn *Conn
	Log  Log

	initPid    int
	wait, kill func() error
	done       chan struct{}
	err        error // wait's, once done is closed

	endOnce sync.Once // the first end says why, and lists what it kills
	reason  string
	killed  []Process
	endedAt time.Time // set before done is closed
}

// Live follows a session whose init has started: initPid is the init's
// pid as this process sees it, wait waits for the init to end and kill
// kills it. The end of ctx ends the session ("timeout" past its
// deadline, else "cancelled").
func Live(ctx context.Context, conn *Conn, initPid int, wait, kill func() error) *Life {
	l := &Life{Conn: conn, initPid: initPid, wait: wait, kill: kill, done: make(chan struct{})}
	go func() {
		l.err = wait()
		l.endOnce.Do(func() { l.reason = "ended" }) // by itself
		l.endedAt = time.Now()
		conn.Close()
		close(l.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			reason := "cancelled"
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				reason = "timeout"
			}
			_ = l.End(reason)
		case <-l.done:
		}
	}()
	return l
}

// End ends the session if it still runs (the first call says why, and
// what was still running is listed just before the init ends it), waits
// until it is gone and returns the init's Wait error.
func (l *Life) End(reason string) error {
	l.endOnce.Do(func() {
		l.reason = reason
		if l.initPid > 0 {
			l.killed = Processes(l.initPid)
		}
		if l.Conn.Stop() != nil {
			_ = l.kill()
		}
	})
	select {
	case <-l.done:
	case <-time.After(5 * time.Second):
		_ = l.kill()
		<-l.done
	}
	return l.err
}

// Start starts a command in the session (Conn.Start) and logs it, for
// whom it runs (forWhom) included; its Wait logs its end. A refusal is a
// *StartError, ErrClosed included (code 125).
func (l *Life) Start(args, env []string, dir string, files [3]*os.File, tty bool, forWhom string) (*Exec, error) {
	i := l.Log.Begin(args, forWhom, time.Now())
	ex, err := l.Conn.Start(args, env, dir, files, tty)
	if err != nil {
		se := &StartError{Code: 125, Msg: err.Error()}
		if !errors.As(err, &se) && errors.Is(err, ErrClosed) {
			se.Msg = "nsrun: the session has ended"
		}
		l.Log.End(i, se.Code, 0, se.Msg, time.Now())
		return nil, se
	}
	ex.log, ex.rec = &l.Log, i
	l.Log.Running(i, ex.Pid)
	return ex, nil
}

// Done is closed once the session has ended.
func (l *Life) Done() <-chan struct{} { return l.done }

// Ended says why the session ended, when, and what was still running
// (nothing listed when it ended by itself); once Done is closed.
func (l *Life) Ended() (reason string, at time.Time, killed []Process) {
	<-l.done
	return l.reason, l.endedAt, l.killed
}

// Commands are the session's commands once it has ended, each with its
// end settled: one still running then was killed by the end (SIGKILL,
// at the end's time). It returns how many were not logged too.
func (l *Life) Commands() ([]Record, int) {
	_, endedAt, _ := l.Ended()
	recs, dropped := l.Log.Records()
	for i := range recs {
		if r := &recs[i]; r.Ended.IsZero() {
			r.Ended, r.Code, r.Signal = endedAt, 128+int(unix.SIGKILL), int(unix.SIGKILL)
		}
	}
	return recs, dropped
}

// Groups files what is learnt of a session's processes (their denials)
// under their process group inside: a command's pid leads the group of
// what it starts. Safe for concurrent use.
type Groups[L any] struct {
	mu      sync.Mutex
	m       map[int]L
	newItem func() L
}

// NewGroups makes Groups whose entries newItem makes.
func NewGroups[L any](newItem func() L) *Groups[L] {
	return &Groups[L]{m: map[int]L{}, newItem: newItem}
}

// For is the entry of the group of the process host (a pid as this
// process sees it); a process of no command's group (one gone, say) is
// filed under 0, which no command takes.
func (g *Groups[L]) For(host int) L {
	pgid := max(InnerPgid(host), 0)
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.m[pgid]
	if !ok {
		e = g.newItem()
		g.m[pgid] = e
	}
	return e
}

// Take hands over the entry of group pgid (a new one if it has none) and
// forgets it: what the group does later makes a new entry.
func (g *Groups[L]) Take(pgid int) L {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.m[pgid]
	delete(g.m, pgid)
	if !ok {
		e = g.newItem()
	}
	return e
}

// Rest are the entries no command took.
func (g *Groups[L]) Rest() []L {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]L, 0, len(g.m))
	for _, e := range g.m {
		out = append(out, e)
	}
	return out
}
