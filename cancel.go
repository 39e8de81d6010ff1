package nsrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

var errWaitDelay = exec.ErrWaitDelay

// stopper ends a running sandbox from outside; each backend has one.
type stopper interface {
	// terminate asks the payload to end: SIGTERM (through the init on
	// Linux); Windows, which has no signals, ends the sandbox.
	terminate() error
	// kill ends every process of the sandbox now.
	kill() error
}

// ending is how the sandbox was ended from outside its payload: written by
// the watcher, read by Start and Wait.
type ending struct {
	mu        sync.Mutex
	timedOut  bool      // Timeout expired
	ctxErr    error     // the context ended the sandbox: its error, with Cancel's if that failed
	inStart   bool      // it happened before the payload started
	delayEnds time.Time // when the WaitDelay that the end started expires
}

func (e *ending) record(f func(*ending)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(e)
}

func (e *ending) outcome() (timedOut bool, ctxErr error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.timedOut, e.ctxErr
}

func (e *ending) endedStart() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inStart
}

func (e *ending) delayDeadline() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.delayEnds
}

// needsWatch says whether anything can end the sandbox from outside.
func (c *Cmd) needsWatch() bool {
	return c.Timeout > 0 || c.ctx != nil && c.ctx.Done() != nil
}

// startWatch watches Timeout and the context until done is closed. Until
// running is closed the payload has not started: an end then kills the
// sandbox at once, and Start fails. The backend calls it before it lets
// the sandbox's setup go on.
func (c *Cmd) startWatch(s stopper, running, done <-chan struct{}) {
	if !c.needsWatch() {
		return
	}
	c.watchDone = make(chan struct{})
	go c.watch(s, running, done)
}

// Timeout runs from the payload's start; building the sandbox may take as
// long again, no longer.
func (c *Cmd) watch(s stopper, running, done <-chan struct{}) {
	defer close(c.watchDone)
	var timer <-chan time.Time
	starting := running
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timer = t.C
	} else {
		starting = nil
	}
	var ctxDone <-chan struct{}
	if c.ctx != nil {
		ctxDone = c.ctx.Done()
	}
	for {
		select {
		case <-done:
			return
		case <-starting:
			// The payload has started: its time starts now.
			starting = nil
			t := time.NewTimer(c.Timeout)
			defer t.Stop()
			timer = t.C
		case <-timer:
			started := isClosed(running)
			c.end.record(func(e *ending) {
				e.timedOut, e.inStart = true, !started
				if c.WaitDelay > 0 {
					e.delayEnds = time.Now().Add(c.WaitDelay)
				}
			})
			if started && c.WaitDelay > 0 {
				_ = s.terminate()
				if !sleepUnless(c.WaitDelay, done) {
					return
				}
			}
			_ = s.kill()
			return
		case <-ctxDone:
			ctxDone = nil
			ctxErr := c.ctx.Err()
			if !isClosed(running) {
				c.end.record(func(e *ending) { e.ctxErr, e.inStart = ctxErr, true })
				_ = s.kill()
				return
			}
			if c.WaitDelay > 0 {
				c.end.record(func(e *ending) { e.delayEnds = time.Now().Add(c.WaitDelay) })
			}
			if c.Cancel != nil {
				err := c.Cancel()
				switch {
				case err == nil:
					c.end.record(func(e *ending) { e.ctxErr = ctxErr })
				case errors.Is(err, os.ErrProcessDone):
					// The sandbox had ended already: nothing was cancelled.
				default:
					err = errors.Join(ctxErr, fmt.Errorf("nsrun: Cancel: %w", err))
					c.end.record(func(e *ending) { e.ctxErr = err })
				}
			}
			if c.WaitDelay == 0 {
				continue // Timeout may still end it
			}
			if !sleepUnless(c.WaitDelay, done) {
				return
			}
			if s.kill() == nil {
				c.end.record(func(e *ending) {
					if e.ctxErr == nil {
						e.ctxErr = ctxErr
					}
				})
			}
			return
		}
	}
}

// cancelDefault is the Cancel that CommandContext sets: the whole sandbox
// killed at once, or, when WaitDelay gives it time, SIGTERM to the payload
// first (the watcher kills the sandbox after the delay).
func (c *Cmd) cancelDefault() error {
	s := c.stopper()
	if s == nil {
		return os.ErrProcessDone
	}
	if c.WaitDelay > 0 {
		return s.terminate()
	}
	return s.kill()
}

// awaitIO waits until done is closed (the payload's output has been
// copied). With WaitDelay it waits no longer than WaitDelay after the
// sandbox ended, or than the delay that the sandbox's end from outside
// started; it then closes the pipes with closeIO and reports that it did.
func (c *Cmd) awaitIO(done <-chan struct{}, closeIO func()) (cut bool) {
	if c.WaitDelay <= 0 || isClosed(done) {
		<-done
		return false
	}
	d := c.WaitDelay
	if at := c.end.delayDeadline(); !at.IsZero() {
		d = time.Until(at)
	}
	if !sleepUnless(d, done) {
		return false
	}
	closeIO()
	<-done
	return true
}

// sleepUnless waits for d, or returns false at once when done is closed.
func sleepUnless(d time.Duration, done <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
		return true
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
