package nsrun

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/seccomp"
)

// TCP states as the kernel numbers them (tcp_states.h).
const (
	tcpClose  = 7
	tcpListen = 10
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
func superviseListen(listener int, ranges []PortRange) (*listenSupervisor, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	ls := &listenSupervisor{listener: listener, stopR: r, stopW: w, done: make(chan struct{}), allowed: portAllowed(ranges)}
	go ls.serve()
	return ls, nil
}

// portAllowed says whether a TCP port is among ranges.
func portAllowed(ranges []PortRange) func(port int) bool {
	return func(port int) bool {
		for _, pr := range ranges {
			if pr.Proto == "tcp" && port >= int(pr.First) && port <= int(pr.Last) {
				return true
			}
		}
		return false
	}
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
		return errnoOf(err)
	}
	defer unix.Close(sock)
	return listenChecked(sock, int(int32(n.Args[1])), ls.allowed)
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
	f, err := os.Open("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no Tgid", tid)
}

// listenChecked performs listen(sock, backlog) unless sock is a TCP socket
// that is not bound to an allowed port.
func listenChecked(sock, backlog int, allowed func(int) bool) unix.Errno {
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return errnoOf(err)
	}
	typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return errnoOf(err)
	}
	if (domain != unix.AF_INET && domain != unix.AF_INET6) || typ != unix.SOCK_STREAM {
		return errnoOf(unix.Listen(sock, backlog))
	}
	info, err := unix.GetsockoptTCPInfo(sock, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return errnoOf(err)
	}
	port, err := localPort(sock)
	if err != nil {
		return errnoOf(err)
	}
	if errno := listenDecision(int(info.State), port, allowed); errno != 0 {
		return errno
	}
	if err := unix.Listen(sock, backlog); err != nil {
		return errnoOf(err)
	}
	// A closed TCP socket with a port has it for good (a bind() port;
	// ports of a failed connect are released): only a socket handed in
	// listening, and disconnected meanwhile, could have changed it.
	if now, err := localPort(sock); err != nil || now != port {
		_ = unix.Shutdown(sock, unix.SHUT_RDWR)
		return unix.EACCES
	}
	return 0
}

// listenDecision is 0 when a TCP socket in state with local port may
// listen, or the errno that refuses it: the kernel's own EINVAL for a
// socket neither closed nor listening (which must not be left to the
// kernel: a concurrent disconnect could release its port first), EACCES
// for one not bound (the kernel would pick a port) or bound to a port the
// rules do not allow.
func listenDecision(state, port int, allowed func(int) bool) unix.Errno {
	switch {
	case state != tcpClose && state != tcpListen:
		return unix.EINVAL
	case port == 0, !allowed(port):
		return unix.EACCES
	}
	return 0
}

func localPort(sock int) (int, error) {
	sa, err := unix.Getsockname(sock)
	if err != nil {
		return 0, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port, nil
	case *unix.SockaddrInet6:
		return a.Port, nil
	}
	return 0, unix.EAFNOSUPPORT
}

func errnoOf(err error) unix.Errno {
	var errno unix.Errno
	if err == nil {
		return 0
	}
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EPERM
}
