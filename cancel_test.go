package nsrun

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"
)

// fakeStopper records what the watcher asked for; the sandbox ends when
// it is killed (end).
type fakeStopper struct {
	mu    sync.Mutex
	calls []string
	end   func()
}

func (f *fakeStopper) Terminate() error { f.add("terminate"); return nil }
func (f *fakeStopper) Kill() error {
	f.add("kill")
	if f.end != nil {
		f.end()
	}
	return nil
}
func (f *fakeStopper) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

// The watcher's decisions: what it asks the backend for, and what Wait is
// told, for each way a sandbox can be ended from outside. Times are short
// and only ordered, never measured.
func TestWatch(t *testing.T) {
	const long = time.Hour
	refused := errors.New("refused")
	for _, tc := range []struct {
		name       string
		timeout    time.Duration
		waitDelay  time.Duration
		cancelled  bool // the context is cancelled at once
		notRunning bool // before the payload started
		cancel     func(s *fakeStopper) error
		noCancel   bool
		endsAfter  time.Duration // the sandbox ends by itself then
		calls      []string
		timedOut   bool
		ctxErr     []error // errors.Is each
		noErr      bool
		inStart    bool
	}{
		{name: "timeout", timeout: time.Millisecond, endsAfter: long, calls: []string{"kill"}, timedOut: true, noErr: true},
		{name: "timeout, grace, ended in it", timeout: time.Millisecond, waitDelay: long, endsAfter: 50 * time.Millisecond,
			calls: []string{"terminate"}, timedOut: true, noErr: true},
		{name: "timeout, grace, then killed", timeout: time.Millisecond, waitDelay: 20 * time.Millisecond, endsAfter: long,
			calls: []string{"terminate", "kill"}, timedOut: true, noErr: true},
		{name: "timeout while starting", timeout: time.Millisecond, waitDelay: long, notRunning: true, endsAfter: long,
			calls: []string{"kill"}, timedOut: true, noErr: true, inStart: true},
		{name: "cancelled", cancelled: true, cancel: func(s *fakeStopper) error { return s.Kill() }, endsAfter: long,
			calls: []string{"kill"}, ctxErr: []error{context.Canceled}},
		{name: "cancelled, grace, ended in it", cancelled: true, waitDelay: long, endsAfter: 50 * time.Millisecond,
			cancel: func(s *fakeStopper) error { return s.Terminate() }, calls: []string{"terminate"}, ctxErr: []error{context.Canceled}},
		{name: "cancelled, grace, then killed", cancelled: true, waitDelay: 20 * time.Millisecond, endsAfter: long,
			cancel: func(s *fakeStopper) error { return s.Terminate() }, calls: []string{"terminate", "kill"}, ctxErr: []error{context.Canceled}},
		{name: "Cancel nil, no delay: nothing", cancelled: true, noCancel: true, endsAfter: 50 * time.Millisecond, noErr: true},
		{name: "Cancel nil, then the delay kills", cancelled: true, noCancel: true, waitDelay: 20 * time.Millisecond, endsAfter: long,
			calls: []string{"kill"}, ctxErr: []error{context.Canceled}},
		{name: "Cancel nil, then the timeout", cancelled: true, noCancel: true, timeout: 20 * time.Millisecond, endsAfter: long,
			calls: []string{"kill"}, timedOut: true, noErr: true},
		{name: "Cancel finds it over", cancelled: true, cancel: func(*fakeStopper) error { return os.ErrProcessDone }, endsAfter: 50 * time.Millisecond, noErr: true},
		{name: "Cancel fails", cancelled: true, cancel: func(*fakeStopper) error { return refused }, endsAfter: 50 * time.Millisecond,
			ctxErr: []error{context.Canceled, refused}},
		{name: "cancelled while starting", cancelled: true, notRunning: true, cancel: func(*fakeStopper) error { t.Error("Cancel before the payload started"); return nil },
			endsAfter: long, calls: []string{"kill"}, ctxErr: []error{context.Canceled}, inStart: true},
		{name: "ended first", timeout: long, endsAfter: 0, noErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := CommandContext(ctx, nil, "x")
			c.Timeout, c.WaitDelay = tc.timeout, tc.waitDelay
			running, done := make(chan struct{}), make(chan struct{})
			var once sync.Once
			end := func() { once.Do(func() { close(done) }) }
			s := &fakeStopper{end: end}
			switch {
			case tc.noCancel:
				c.Cancel = nil
			case tc.cancel != nil:
				c.Cancel = func() error { return tc.cancel(s) }
			}
			if !tc.notRunning {
				close(running)
			}
			if tc.cancelled {
				cancel()
			}
			c.startWatch(s, running, done)
			defer time.AfterFunc(tc.endsAfter, end).Stop()
			<-c.watchDone
			if !reflect.DeepEqual(s.calls, tc.calls) {
				t.Errorf("calls %q, want %q", s.calls, tc.calls)
			}
			timedOut, ctxErr := c.end.Outcome()
			if timedOut != tc.timedOut || tc.noErr && ctxErr != nil || c.end.EndedStart() != tc.inStart {
				t.Errorf("timed out %v, context error %v, in start %v", timedOut, ctxErr, c.end.EndedStart())
			}
			for _, want := range tc.ctxErr {
				if !errors.Is(ctxErr, want) {
					t.Errorf("context error %v is not %v", ctxErr, want)
				}
			}
		})
	}
	// Nothing to watch, no watcher.
	c := Command(nil, "x")
	c.startWatch(&fakeStopper{}, nil, nil)
	if c.watchDone != nil {
		t.Error("a watcher without a timeout or a context")
	}
}
