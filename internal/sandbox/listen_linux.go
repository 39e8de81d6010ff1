package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/procfs"
	"github.com/nsrun/nsrun/seccomp"
)

// listenSupervisor answers the listen() calls that the seccomp guard hands
// over when TCP binding is restricted. listen() on a socket never bound
// makes the kernel pick a port, with no bind() for Landlock to check; no
// filter can tell a bound socket from an unbound one, so nsrun looks at
// the socket itself. It takes the payload's socket with pidfd_getfd and
// performs listen() on that socket itself: checking and then letting the
// kernel continue the call would let another thread swap the descriptor
// in between.
type listenSupervisor struct {
	listener int
	allowed  func(port int) bool
	stopR    *os.File // readable (at end of file) once stop was called
	stopW    *os.File
	done     chan struct{}
}

// superviseListen serves listener, allowing listen() on TCP sockets bound
// to a port of ranges, until stop.
func superviseListen(listener int, ranges []launch.PortRange) (*listenSupervisor, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	ls := &listenSupervisor{listener: listener, stopR: r, stopW: w, done: make(chan struct{}), allowed: launch.PortAllowed(ranges)}
	go ls.serve()
	return ls, nil
}

// stop ends serving and closes the listener; calls still waiting then
// fail with ENOSYS.
func (ls *listenSupervisor) stop() {
	ls.stopW.Close()
	<-ls.done
}

func (ls *listenSupervisor) serve() {
	defer close(ls.done)
	defer ls.stopR.Close()
	defer unix.Close(ls.listener)
	fds := []unix.PollFd{{Fd: int32(ls.listener), Events: unix.POLLIN}, {Fd: int32(ls.stopR.Fd()), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if fds[1].Revents != 0 || fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
			return // stopped, or every process of the filter is gone
		}
		n, err := seccomp.Receive(ls.listener)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // the caller died before its call was received
			}
			return
		}
		errno := ls.handle(n)
		_ = seccomp.Respond(ls.listener, n.ID, 0, errno)
	}
}

// handle performs the listen(fd, backlog) call n stands for and returns
// its errno.
func (ls *listenSupervisor) handle(n seccomp.Notification) unix.Errno {
	pidfd, err := openTask(int(n.Pid))
	if err != nil {
		return unix.EPERM
	}
	defer unix.Close(pidfd)
	// Still waiting means the task is alive, so the pid named it when the
	// pidfd was opened.
	if !seccomp.Valid(ls.listener, n.ID) {
		return unix.EPERM
	}
	sock, err := unix.PidfdGetfd(pidfd, int(int32(n.Args[0])), 0)
	if err != nil {
		return launch.ErrnoOf(err)
	}
	defer unix.Close(sock)
	return launch.ListenChecked(sock, int(int32(n.Args[1])), ls.allowed)
}

// openTask opens a pidfd on the thread tid (Linux 6.9), or on its process
// where the kernel cannot open one on a thread.
func openTask(tid int) (int, error) {
	fd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	if err == nil || !errors.Is(err, unix.EINVAL) {
		return fd, err
	}
	tgid, err := threadGroup(tid)
	if err != nil {
		return -1, err
	}
	return unix.PidfdOpen(tgid, 0)
}

// threadGroup reads the process id of the thread tid.
func threadGroup(tid int) (int, error) {
	st, err := procfs.ReadStatus(tid)
	if err != nil {
		return 0, err
	}
	if tgid, ok := st.Int("Tgid", false); ok {
		return tgid, nil
	}
	return 0, fmt.Errorf("/proc/%d/status: no Tgid", tid)
}
