// Package watch ends a running sandbox from outside its payload, as the
// root package's Cmd documents it: its Timeout, which runs from the
// payload's start; its context's end, which calls its Cancel; and its
// WaitDelay, the grace after either before every process is killed and
// the copying of the output is cut. It is the same on every system: each
// backend gives it a Stopper.
package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Stopper ends a running sandbox from outside; each backend has one.
type Stopper interface {
	// Terminate asks the payload to end: SIGTERM (through the init on
	// Linux); Windows, which has no signals, ends the sandbox.
	Terminate() error
	// Kill ends every process of the sandbox now.
	Kill() error
}

// Settings are what may end a sandbox from outside, as the Cmd sets them.
type Settings struct {
	Timeout   time.Duration
	WaitDelay time.Duration
	Ctx       context.Context // nil: none
	Cancel    func() error    // called when Ctx ends once the payload runs; nil: none
}

// Needed says whether anything can end the sandbox from outside.
func (s *Settings) Needed() bool {
	return s.Timeout > 0 || s.Ctx != nil && s.Ctx.Done() != nil
}

// Ending is how the sandbox was ended from outside its payload: written by
// the watcher, read by Start and Wait.
type Ending struct {
	mu        sync.Mutex
	timedOut  bool      // Timeout expired
	ctxErr    error     // the context ended the sandbox: its error, with Cancel's if that failed
	inStart   bool      // it happened before the payload started
	delayEnds time.Time // when the WaitDelay that the end started expires
}

func (e *Ending) record(f func(*Ending)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(e)
}

// Outcome is whether Timeout ended the sandbox, and the context's error
// if the context did.
func (e *Ending) Outcome() (timedOut bool, ctxErr error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.timedOut, e.ctxErr
}

// EndedStart says the end came before the payload started.
func (e *Ending) EndedStart() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inStart
}

func (e *Ending) delayDeadline() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.delayEnds
}

// Watch watches what s sets until done is closed, ending the sandbox
// through st and recording how in e. Until running is closed the payload
// has not started: an end then kills the sandbox at once, and Start
// fails. It returns a channel closed once the watcher is gone, or nil
// when nothing can end the sandbox from outside (no watcher).
func (e *Ending) Watch(s Settings, st Stopper, running, done <-chan struct{}) chan struct{} {
	if !s.Needed() {
		return nil
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		e.watch(&s, st, running, done)
	}()
	return gone
}

// Timeout runs from the payload's start; building the sandbox may take as
// long again, no longer.
func (e *Ending) watch(s *Settings, st Stopper, running, done <-chan struct{}) {
	var timer <-chan time.Time
	starting := running
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timer = t.C
	} else {
		starting = nil
	}
	var ctxDone <-chan struct{}
	if s.Ctx != nil {
		ctxDone = s.Ctx.Done()
	}
	for {
		select {
		case <-done:
			return
		case <-starting:
			// The payload has started: its time starts now.
			starting = nil
			t := time.NewTimer(s.Timeout)
			defer t.Stop()
			timer = t.C
		case <-timer:
			started := isClosed(running)
			e.record(func(e *Ending) {
				e.timedOut, e.inStart = true, !started
				if s.WaitDelay > 0 {
					e.delayEnds = time.Now().Add(s.WaitDelay)
				}
			})
			if started && s.WaitDelay > 0 {
				_ = st.Terminate()
				if !sleepUnless(s.WaitDelay, done) {
					return
				}
			}
			_ = st.Kill()
			return
		case <-ctxDone:
			ctxDone = nil
			ctxErr := s.Ctx.Err()
			if !isClosed(running) {
				e.record(func(e *Ending) { e.ctxErr, e.inStart = ctxErr, true })
				_ = st.Kill()
				return
			}
			if s.WaitDelay > 0 {
				e.record(func(e *Ending) { e.delayEnds = time.Now().Add(s.WaitDelay) })
			}
			if s.Cancel != nil {
				err := s.Cancel()
				switch {
				case err == nil:
					e.record(func(e *Ending) { e.ctxErr = ctxErr })
				case errors.Is(err, os.ErrProcessDone):
					// The sandbox had ended already: nothing was cancelled.
				default:
					err = errors.Join(ctxErr, fmt.Errorf("nsrun: Cancel: %w", err))
					e.record(func(e *Ending) { e.ctxErr = err })
				}
			}
			if s.WaitDelay == 0 {
				continue // Timeout may still end it
			}
			if !sleepUnless(s.WaitDelay, done) {
				return
			}
			if st.Kill() == nil {
				e.record(func(e *Ending) {
					if e.ctxErr == nil {
						e.ctxErr = ctxErr
					}
				})
			}
			return
		}
	}
}

// AwaitIO waits until done is closed (the payload's output has been
// copied). With a waitDelay it waits no longer than waitDelay after the
// sandbox ended, or than the delay that the sandbox's end from outside
// started; it then closes the pipes with closeIO and reports that it did.
func (e *Ending) AwaitIO(waitDelay time.Duration, done <-chan struct{}, closeIO func()) (cut bool) {
	if waitDelay <= 0 || isClosed(done) {
		<-done
		return false
	}
	d := waitDelay
	if at := e.delayDeadline(); !at.IsZero() {
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
