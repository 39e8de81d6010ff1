package sandbox

import (
	"os"
	"os/signal"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/pty"
)

// jobEvent is what the terminal's owner learns about the job it runs in.
type jobEvent int

const (
	jobStart      jobEvent = iota
	jobContinued           // nsrun was continued (SIGCONT)
	jobStopped             // the payload was stopped by a terminal signal
	jobBackground          // the relay found nsrun in the background
)

// jobAction is what nsrun does on a jobEvent: hold the caller's terminal
// or let go of it, then tell the payload's supervisor (ctl); or stop itself
// (stop) and, once continued, decide again.
type jobAction struct {
	hold bool        // raw modes, keys relayed
	ctl  byte        // launch.CtlForeground, launch.CtlBackground or 0
	stop unix.Signal // 0, or the signal to stop nsrun with, as a shell job stops
}

// decideJob mirrors job control of the caller's terminal onto the pty,
// whose supervisor (the init, or the Landlock-only stage) moves the payload
// between the pty's foreground and background as nsrun's job moves: a
// background nsrun does not read the caller's terminal, and its payload
// runs on until it reads its own, which stops it (SIGTTIN), and nsrun with
// it. fg says whether nsrun is in the caller's terminal's foreground; jobs
// whether job control applies at all (the terminal is nsrun's controlling
// one and its process group is not orphaned).
func decideJob(ev jobEvent, sig unix.Signal, fg, jobs bool) jobAction {
	if !jobs {
		// Nobody to stop for and nobody to continue nsrun: a stopped
		// payload gets the terminal back at once.
		a := jobAction{hold: true}
		if ev == jobStopped || ev == jobContinued {
			a.ctl = launch.CtlForeground
		}
		return a
	}
	if fg {
		if ev == jobStopped && sig == unix.SIGTSTP {
			return jobAction{stop: sig} // Ctrl-Z: the job stops, the shell shows it
		}
		// A payload stopped for wanting the terminal (SIGTTIN, SIGTTOU)
		// found nsrun back in the foreground: it gets the terminal.
		a := jobAction{hold: true}
		if ev != jobStart {
			a.ctl = launch.CtlForeground
		}
		return a
	}
	if ev == jobStopped {
		return jobAction{stop: sig}
	}
	return jobAction{ctl: launch.CtlBackground}
}

// observe says whether nsrun is in the foreground of the caller's
// terminal, and whether job control applies there at all.
func (t *terminal) observe() (fg, jobs bool) {
	if t.tty < 0 || !t.plan.keys || !pty.IsControlling(t.tty) || orphaned() {
		return true, false
	}
	pgrp, err := pty.ForegroundOf(t.tty)
	return err == nil && pgrp == unix.Getpgrp(), true
}

// foregroundAtStart is whether the payload starts in the pty's foreground.
func (t *terminal) foregroundAtStart() bool {
	fg, _ := t.observe()
	return fg
}

// orphaned reports whether this process's group is orphaned as far as it
// can tell (its parent is not in another group of the same session): the
// kernel then discards the stop signals a job would stop with.
func orphaned() bool {
	ppid := unix.Getppid()
	psid, err1 := unix.Getsid(ppid)
	sid, err2 := unix.Getsid(0)
	ppgrp, err3 := unix.Getpgid(ppid)
	return err1 != nil || err2 != nil || err3 != nil || psid != sid || ppgrp == unix.Getpgrp()
}

// follow passes on window size changes and continues after a stop, until
// quit is closed. Its signals are registered here, off the way of the
// payload's start.
func (t *terminal) follow(quit <-chan struct{}) {
	defer close(t.followed)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGCONT, unix.SIGWINCH)
	defer signal.Stop(sigs)
	t.mu.Lock()
	t.notified = true
	t.mu.Unlock()
	for {
		select {
		case <-quit:
			return
		case sig := <-sigs:
			if sig == unix.SIGCONT {
				t.event(jobContinued, 0)
			} else {
				_ = t.resync()
			}
		}
	}
}

// mayRead is the key relay's gate: keys are read only while nsrun holds the
// terminal and is in its foreground. A background nsrun that finds itself
// there without having been told lets go of the terminal.
func (t *terminal) mayRead() bool {
	t.mu.Lock()
	raw := t.raw
	t.mu.Unlock()
	if !raw {
		return false
	}
	if fg, jobs := t.observe(); jobs && !fg {
		t.event(jobBackground, 0)
		return false
	}
	return true
}

// event applies decideJob, stopping nsrun as often as it says.
func (t *terminal) event(ev jobEvent, sig unix.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.begun {
		return
	}
	if ev == jobContinued && t.resumed > 0 {
		t.resumed--
		return
	}
	for {
		fg, jobs := t.observe()
		a := decideJob(ev, sig, fg, jobs)
		if a.stop == 0 {
			t.hold(a.hold)
			if a.ctl != 0 {
				t.control(a.ctl)
			}
			return
		}
		t.hold(false)
		stopSelf(a.stop)
		if t.notified {
			t.resumed++
		}
		ev = jobContinued
	}
}

// hold takes the caller's terminal (raw modes, the pty's size) or gives it
// back (the modes it had). Called with t.mu held.
func (t *terminal) hold(on bool) {
	if on && t.plan.keys && t.orig == nil {
		t.orig, _ = pty.GetMode(t.tty)
	}
	if on && t.plan.keys && t.orig != nil {
		raw := pty.Raw(*t.orig)
		// From the background this stops nsrun (SIGTTOU) until it is in
		// the foreground again, as it should.
		if err := pty.SetMode(t.tty, &raw); err == nil {
			t.raw = true
		}
		_ = t.syncSize()
	} else if !on {
		t.restore()
		if t.queries != nil {
			// The terminal's answers go to its shell now.
			t.queries.Forget()
		}
	}
	if t.in != nil {
		t.in.Wake()
	}
}

// restore gives the caller's terminal its modes back, also from the
// background. Called with t.mu held.
func (t *terminal) restore() {
	if !t.raw {
		return
	}
	pty.WithSIGTTOUBlocked(func() { _ = pty.SetMode(t.tty, t.orig) })
	t.raw = false
}

// stopFollow ends follow and waits until it has: its signals are no longer
// registered when the run ends.
func (t *terminal) stopFollow() {
	t.mu.Lock()
	quit := t.quit
	t.quit = nil
	t.mu.Unlock()
	if quit != nil {
		close(quit)
		<-t.followed
	}
}

// stopSelf stops this process with sig, as a shell job is stopped, until
// the shell continues it. Directed at this thread, the stop takes effect
// before the call returns.
func stopSelf(sig unix.Signal) {
	runtime.LockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	runtime.UnlockOSThread()
}
