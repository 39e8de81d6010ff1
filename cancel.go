package nsrun

import (
	"os"
	"os/exec"

	"github.com/nsrun/nsrun/internal/watch"
)

var errWaitDelay = exec.ErrWaitDelay

// stopper ends a running sandbox from outside; each backend has one.
type stopper = watch.Stopper

// startWatch watches Timeout and the context until done is closed (the
// watcher is internal/watch's). Until running is closed the payload has
// not started: an end then kills the sandbox at once, and Start fails.
// The backend calls it before it lets the sandbox's setup go on.
func (c *Cmd) startWatch(s stopper, running, done <-chan struct{}) {
	set := watch.Settings{Timeout: c.Timeout, WaitDelay: c.WaitDelay, Ctx: c.ctx, Cancel: c.Cancel}
	c.watchDone = c.end.Watch(set, s, running, done)
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
		return s.Terminate()
	}
	return s.Kill()
}
