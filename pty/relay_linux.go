package pty

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Output copies what the programs on a pty write, from its master, to a
// writer, in batches: it reads until the master has nothing more (or 64
// KiB) before it writes, so a fast producer costs few writes downstream.
type Output struct {
	master *os.File
	w      io.Writer
	done   chan struct{}
	mu     sync.Mutex
	until  time.Time // zero while the pty's programs run; then the drain's end
	idle   time.Duration
	err    error // the first write error
}

// StartOutput starts copying from master, which must be non-blocking (see
// NonBlocking), to w.
func StartOutput(master *os.File, w io.Writer) *Output {
	o := &Output{master: master, w: w, done: make(chan struct{})}
	go o.run()
	return o
}

func (o *Output) run() {
	defer close(o.done)
	rc, err := o.master.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n := 0
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			for n < len(buf) {
				m, err := unix.Read(int(fd), buf[n:])
				switch {
				case err == unix.EINTR:
					continue
				case err == unix.EAGAIN:
					return n > 0
				case err != nil:
					rerr = err // EIO: the last slave is closed
					return true
				case m == 0:
					rerr = io.EOF
					return true
				}
				n += m
			}
			return true
		})
		if n > 0 {
			o.write(buf[:n])
			o.extend()
		}
		if err != nil || rerr != nil {
			return
		}
	}
}

// write passes b on; after a write error the rest is read and dropped, so
// the programs on the pty are not held up by a reader that went away.
func (o *Output) write(b []byte) {
	o.mu.Lock()
	failed := o.err != nil
	o.mu.Unlock()
	if failed {
		return
	}
	if _, err := o.w.Write(b); err != nil {
		o.mu.Lock()
		o.err = err
		o.mu.Unlock()
	}
}

// extend moves the drain's deadline on after output, up to its end.
func (o *Output) extend() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.until.IsZero() {
		return
	}
	d := time.Now().Add(o.idle)
	if d.After(o.until) {
		d = o.until
	}
	_ = o.master.SetReadDeadline(d)
}

// Drain waits for the copy to end once the programs on the pty are gone or
// going: at the master's end of file (every slave closed), or when nothing
// came for idle, or after limit in all. It returns the first write error.
func (o *Output) Drain(idle, limit time.Duration) error {
	o.mu.Lock()
	o.idle, o.until = idle, time.Now().Add(limit)
	_ = o.master.SetReadDeadline(time.Now().Add(idle))
	o.mu.Unlock()
	<-o.done
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// NonBlocking returns f as a non-blocking file the Go poller waits on, and
// closes f. f must be an open file this process alone uses (a pty master
// it opened or was sent), never one shared with another program: the flag
// is the open file's, not the descriptor's.
func NonBlocking(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup %s: %w", f.Name(), err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("set %s non-blocking: %w", f.Name(), err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// Gate says whether the terminal may be read now. It is asked before every
// read; when it says no, the relay waits for Input.Wake.
type Gate func() bool

// Input relays the keys typed on a terminal to a pty's master. It never
// sets O_NONBLOCK on the terminal (its shell shares that open file) and
// never waits inside read(2): it waits in poll(2) and reads only what is
// there, so a change of foreground cannot find it blocked in a read that
// would take input from the shell.
type Input struct {
	tty    int
	master *os.File
	gate   Gate
	seen   func([]byte) // nil, or told what is relayed before it is
	wake   int          // eventfd
	mu     sync.Mutex
	closed bool
	done   chan struct{}
}

// StartInput starts relaying tty to master (non-blocking) while gate says
// so; seen, when not nil, is given each piece before it is relayed (the
// terminal's answers to queries are recognized in it).
func StartInput(tty int, master *os.File, gate Gate, seen func([]byte)) (*Input, error) {
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	in := &Input{tty: tty, master: master, gate: gate, seen: seen, wake: wake, done: make(chan struct{})}
	go in.run()
	return in, nil
}

// Wake makes the relay ask its gate again.
func (in *Input) Wake() {
	var one = [8]byte{1}
	_, _ = unix.Write(in.wake, one[:])
}

// Stop ends the relay and waits for it; a write to the master that is
// blocked (the pty's programs read nothing) is abandoned.
func (in *Input) Stop() {
	in.mu.Lock()
	in.closed = true
	in.mu.Unlock()
	in.Wake()
	_ = in.master.SetWriteDeadline(time.Now())
	<-in.done
	unix.Close(in.wake)
}

func (in *Input) stopped() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.closed
}

func (in *Input) run() {
	defer close(in.done)
	buf := make([]byte, 4096)
	for !in.stopped() {
		open := in.gate()
		fds := []unix.PollFd{{Fd: int32(in.wake), Events: unix.POLLIN}}
		if open {
			fds = append(fds, unix.PollFd{Fd: int32(in.tty), Events: unix.POLLIN})
		}
		if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
			return
		}
		if fds[0].Revents != 0 {
			var b [8]byte
			_, _ = unix.Read(in.wake, b[:])
			continue
		}
		if !open || fds[1].Revents == 0 {
			continue
		}
		if fds[1].Revents&unix.POLLIN == 0 {
			return // hung up, or not readable at all
		}
		if !in.gate() {
			continue
		}
		n, err := unix.IoctlGetInt(in.tty, unix.TIOCINQ)
		if err != nil {
			return
		}
		if n <= 0 {
			// Readable with nothing to read: a hangup on its way.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		m, err := unix.Read(in.tty, buf[:min(n, len(buf))])
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil || m == 0 {
			return
		}
		if in.seen != nil {
			in.seen(buf[:m])
		}
		if _, err := in.master.Write(buf[:m]); err != nil {
			return
		}
	}
}

// FDWriter writes to a descriptor this process may share (a caller's
// terminal or pipe), waiting in poll(2) when someone else made it
// non-blocking.
type FDWriter int

func (w FDWriter) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		n, err := unix.Write(int(w), b[done:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			fds := []unix.PollFd{{Fd: int32(w), Events: unix.POLLOUT}}
			if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
				return done, err
			}
			continue
		case err != nil:
			return done, err
		case n == 0:
			return done, io.ErrShortWrite
		}
		done += n
	}
	return done, nil
}
