package session

import (
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/sandbox"
)

// Command is a command of a session as its caller holds it: its standard
// streams and, once started, its process in the session's init.
type Command struct {
	streams *sandbox.Streams
	mu      sync.Mutex // exec, which the caller's watcher reads
	exec    *Exec
}

// NewCommand makes the standard streams of a command.
func NewCommand(in io.Reader, out, errOut io.Writer) (*Command, error) {
	st, err := sandbox.NewStreams(in, out, errOut)
	if err != nil {
		return nil, err
	}
	return &Command{streams: st}, nil
}

// Start starts args in l's init (Life.Start); a refusal is a *StartError,
// and the command's streams are then closed.
func (c *Command) Start(l *Life, args, env []string, dir string, tty bool, forWhom string) error {
	ex, err := l.Start(args, env, dir, c.streams.Files(), tty, forWhom)
	c.streams.Started()
	if err != nil {
		c.streams.Abort()
		return err
	}
	c.mu.Lock()
	c.exec = ex
	c.mu.Unlock()
	return nil
}

// Signal sends sig to the command's process group; os.ErrProcessDone
// before it started.
func (c *Command) Signal(sig unix.Signal) error {
	c.mu.Lock()
	ex := c.exec
	c.mu.Unlock()
	if ex == nil {
		return os.ErrProcessDone
	}
	return ex.Signal(sig)
}

// Pid is the command's process, as nsrun sees it.
func (c *Command) Pid() int { return c.exec.Pid }

// Wait waits for the command to end.
func (c *Command) Wait() launch.SessionReply { return c.exec.Wait() }

// Finish waits for the copying of the command's output (Streams.Finish).
func (c *Command) Finish(awaitIO func(copied <-chan struct{}, cut func()) bool) (cut bool, err error) {
	return c.streams.Finish(awaitIO)
}
