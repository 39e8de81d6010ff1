package supervise

import (
	"runtime"
	"sync"
)

// Thread is a locked OS thread that runs functions: what must happen with
// one thread's credentials (its Landlock domain, its capabilities, being
// the parent a child's death signal follows) runs there.
type Thread struct {
	jobs chan func()
}

// StartThread starts a thread, runs setup on it and returns once setup is
// done. The thread is never handed back to the Go scheduler: it ends when
// Stop is called.
func StartThread(setup func() error) (*Thread, error) {
	t := &Thread{jobs: make(chan func())}
	ready := make(chan error, 1)
	go func() {
		// Never unlocked: a thread whose credentials were changed must not
		// run other goroutines, so it ends with this one.
		runtime.LockOSThread()
		if err := setup(); err != nil {
			ready <- err
			return
		}
		ready <- nil
		for f := range t.jobs {
			f()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return t, nil
}

// Do runs f on the thread and returns when it has.
func (t *Thread) Do(f func()) {
	done := make(chan struct{})
	t.jobs <- func() { f(); close(done) }
	<-done
}

// Stop ends the thread once it has run what it was given.
func (t *Thread) Stop() { close(t.jobs) }

// pool runs jobs on threads set up alike, starting one more when all are
// busy (a connect can block for minutes), up to max.
type pool struct {
	setup func() error
	jobs  chan func()
	mu    sync.Mutex
	n     int
	max   int
}

func newPool(setup func() error, max int) *pool {
	return &pool{setup: setup, jobs: make(chan func()), max: max}
}

// run hands f to an idle thread, or a new one, or waits for one. f gets
// the error of a thread that could not be set up, and must then not do
// its work.
func (p *pool) run(f func(setupErr error)) {
	job := func() { f(nil) }
	select {
	case p.jobs <- job:
		return
	default:
	}
	p.mu.Lock()
	if p.n < p.max {
		p.n++
		p.mu.Unlock()
		go p.thread(f)
		return
	}
	p.mu.Unlock()
	p.jobs <- job
}

func (p *pool) thread(first func(error)) {
	runtime.LockOSThread()
	if err := p.setup(); err != nil {
		p.mu.Lock()
		p.n--
		p.mu.Unlock()
		first(err)
		return
	}
	first(nil)
	for f := range p.jobs {
		f()
	}
}

// do runs f on a thread of the pool and waits for it; f does not run
// where no thread could be set up, and do says why.
func (p *pool) do(f func()) error {
	done := make(chan error, 1)
	p.run(func(setupErr error) {
		if setupErr == nil {
			f()
		}
		done <- setupErr
	})
	return <-done
}
