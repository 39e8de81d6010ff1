package pty

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Absorb reads from the terminal tty, after the relay has stopped, the
// answers to the queries q awaits, and drops them: until none is awaited,
// or until deadline, or until gate says no. It reads one byte at a time,
// so that it never reads past the last answer, and stops at the first byte
// that no answer expected has: it returns the bytes it read of that
// sequence (keys typed meanwhile), and of one unfinished at the end, for
// the caller to give back. Like Input it waits in poll(2), never in read.
func Absorb(tty int, q *Queries, deadline time.Time, gate Gate) ([]byte, error) {
	q.startAbsorb()
	var held []byte
	for {
		if n, _ := q.Awaited(); n == 0 && !q.absorbing() {
			return held, nil
		}
		wait := time.Until(deadline)
		if wait <= 0 || !gate() {
			return held, nil
		}
		fds := []unix.PollFd{{Fd: int32(tty), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(wait.Milliseconds())+1)
		if err == unix.EINTR || n == 0 {
			continue
		}
		if err != nil {
			return held, fmt.Errorf("poll the terminal: %w", err)
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			return held, nil // hung up
		}
		if inq, err := unix.IoctlGetInt(tty, unix.TIOCINQ); err != nil || inq <= 0 {
			// Readable with nothing to read: a hangup on its way.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		var b [1]byte
		m, err := unix.Read(tty, b[:])
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil || m == 0 {
			return held, err
		}
		switch q.absorb(b[0], len(held) > 0) {
		case vAnswer:
			held = held[:0]
		case vForeign:
			return append(held, b[0]), nil
		default:
			held = append(held, b[0])
		}
	}
}

// ErrCannotGiveBack is GiveBack's error when the kernel does not let this
// process put input into the terminal.
var ErrCannotGiveBack = errors.New("the kernel refuses TIOCSTI here (legacy_tiocsti off, or not the controlling terminal, without CAP_SYS_ADMIN)")

// GiveBack puts b back into the terminal's input, ahead of what is queued
// there now, as if it had never been read: TIOCSTI appends, so what is
// queued is read first and put back after b. The kernel allows TIOCSTI
// only on the caller's controlling terminal with dev.tty.legacy_tiocsti
// set, or with CAP_SYS_ADMIN; otherwise b is lost and ErrCannotGiveBack
// says so. Call it while the terminal is in raw modes, so that what is put
// back is neither echoed nor acted on (ISIG).
func GiveBack(tty int, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	// The kernel checks the permission before it reads the byte: a null
	// pointer tells whether the call would be allowed, with no effect.
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(tty), unix.TIOCSTI, 0)
	if errno != unix.EFAULT {
		return fmt.Errorf("give typed keys back to the terminal: %w (%v)", ErrCannotGiveBack, errno)
	}
	for {
		inq, err := unix.IoctlGetInt(tty, unix.TIOCINQ)
		if err != nil || inq <= 0 {
			break
		}
		buf := make([]byte, inq)
		m, err := unix.Read(tty, buf)
		if err != nil || m <= 0 {
			break
		}
		b = append(b, buf[:m]...)
	}
	for i := range b {
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(tty), unix.TIOCSTI, uintptr(unsafe.Pointer(&b[i]))); errno != 0 {
			return fmt.Errorf("give typed keys back to the terminal (TIOCSTI): %w", errno)
		}
	}
	return nil
}

// absorbing reports whether a sequence is in progress on the input.
func (q *Queries) absorbing() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.in.state != sGround
}
