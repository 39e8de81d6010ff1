package session

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/fdpass"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/wire"
	"github.com/nsrun/nsrun/pty"
)

// ErrClosed says the session has ended.
var ErrClosed = errors.New("the session has ended")

// StartError is a command the init could not start: Code is 126 (not
// executable) or 127 (not found), or 125.
type StartError struct {
	Code int
	Msg  string
}

func (e *StartError) Error() string { return e.Msg }

// Pair makes the socket between the holder and the init: the holder keeps
// parent, the init gets child.
func Pair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair for the session's init: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "session"), os.NewFile(uintptr(fds[1]), "session-init"), nil
}

// Conn is the holder's channel to a session's init; safe for concurrent
// use.
//
// Locking: sending holds use for reading, Close for writing, so that the
// descriptor is never closed (and its number reused) under a send; mu
// guards the rest.
type Conn struct {
	sock     *os.File
	fd       int
	readDone chan struct{}

	use      sync.RWMutex
	sockShut bool
	mu       sync.Mutex
	nextID   uint64
	waiting  map[uint64]chan launch.SessionReply
	closed   bool
}

// NewConn starts reading the init's replies on sock.
func NewConn(sock *os.File) *Conn {
	c := &Conn{sock: sock, fd: int(sock.Fd()), readDone: make(chan struct{}), waiting: map[uint64]chan launch.SessionReply{}}
	go c.read()
	return c
}

func (c *Conn) read() {
	defer close(c.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, fds, err := fdpass.Recv(c.fd, buf, 0)
		for _, fd := range fds {
			unix.Close(fd)
		}
		if err != nil {
			c.shut()
			return
		}
		var r launch.SessionReply
		if wire.Unmarshal(buf[:n], &r) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.waiting[r.ID]
		if r.Kind != launch.SessionStarted {
			delete(c.waiting, r.ID)
		}
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// shut ends every exec still waited for: the init is gone, and with it
// every process of the session.
func (c *Conn) shut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
}

// Running is how many commands have been started and not yet reported.
func (c *Conn) Running() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiting)
}

// Exec is a command started in the session.
type Exec struct {
	c   *Conn
	ID  uint64
	Pid int // inside the sandbox's PID namespace
	ch  chan launch.SessionReply
	log *Log // where Wait logs its end (Life.Start), and its index there
	rec int
}

// Start asks the init to start args with env in dir ("" is the session's
// directory), files as its standard streams (with tty, a terminal that
// becomes its controlling terminal), and waits until it has.
func (c *Conn) Start(args, env []string, dir string, files [3]*os.File, tty bool) (*Exec, error) {
	ch := make(chan launch.SessionReply, 2)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.nextID++
	id := c.nextID
	c.waiting[id] = ch
	c.mu.Unlock()
	b, err := wire.Marshal(&launch.SessionRequest{ID: id, Op: launch.SessionExec, Args: args, Env: env, Dir: dir, TTY: tty})
	if err == nil && len(b) > launch.MaxSessionMsg {
		err = fmt.Errorf("the command and its environment take %d bytes, over the %d a session takes", len(b), launch.MaxSessionMsg)
	}
	if err == nil {
		err = c.sendFDs(b, int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	}
	if err != nil {
		c.forget(id)
		if errors.Is(err, fdpass.ErrClosed) {
			return nil, ErrClosed
		}
		return nil, err
	}
	r, ok := <-ch
	switch {
	case !ok:
		return nil, ErrClosed
	case r.Kind == launch.SessionFailed:
		return nil, &StartError{Code: r.Code, Msg: r.Msg}
	}
	return &Exec{c: c, ID: id, Pid: r.Pid, ch: ch}, nil
}

func (c *Conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}

// Wait waits for the command to end. A session that ended first killed
// it: it then reports SIGKILL.
func (e *Exec) Wait() launch.SessionReply {
	r, ok := <-e.ch
	if !ok {
		r = launch.SessionReply{ID: e.ID, Kind: launch.SessionExited, Code: 128 + int(unix.SIGKILL), Signal: int(unix.SIGKILL)}
	}
	if e.log != nil {
		e.log.End(e.rec, r.Code, r.Signal, "", time.Now())
	}
	return r
}

// Signal sends sig to the command's process group, if it is still
// running.
func (e *Exec) Signal(sig unix.Signal) error {
	return e.c.send(&launch.SessionRequest{ID: e.ID, Op: launch.SessionSignal, Signal: int(sig)})
}

// Stop asks the init to end every process of the session and exit.
func (c *Conn) Stop() error {
	return c.send(&launch.SessionRequest{Op: launch.SessionStop})
}

func (c *Conn) send(r *launch.SessionRequest) error {
	b, err := wire.Marshal(r)
	if err != nil {
		return err
	}
	if err := c.sendFDs(b); err != nil {
		if errors.Is(err, fdpass.ErrClosed) {
			return ErrClosed
		}
		return err
	}
	return nil
}

func (c *Conn) sendFDs(b []byte, fds ...int) error {
	c.use.RLock()
	defer c.use.RUnlock()
	if c.sockShut {
		return fdpass.ErrClosed
	}
	return fdpass.Send(c.fd, b, fds...)
}

// Close closes the holder's end: an init still running ends the session.
func (c *Conn) Close() error {
	c.use.Lock()
	if c.sockShut {
		c.use.Unlock()
		return nil
	}
	c.sockShut = true
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR) // wakes the reader
	c.use.Unlock()
	<-c.readDone
	return c.sock.Close()
}

// CheckTTY accepts a terminal for a command of its own (launch's
// SessionRequest.TTY): one made for it, such as a pty's slave, and not
// this process's controlling terminal, which never enters a sandbox (the
// command could push input into it, and change its modes).
func CheckTTY(f *os.File) error {
	if f == nil || !pty.IsTerminal(int(f.Fd())) {
		return errors.New("the Stdin given must be a terminal made for the command (a pty's slave)")
	}
	if pty.IsControlling(int(f.Fd())) {
		return errors.New("the Stdin given is this process's controlling terminal, which never enters the sandbox; give the command a pty of its own and relay it")
	}
	return nil
}
