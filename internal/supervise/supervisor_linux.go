package supervise

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/procfs"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/seccomp"
)

// Sizes the kernel bounds its arguments by.
const (
	maxSockaddr   = 128 // sizeof(struct sockaddr_storage)
	xattrNameMax  = 255
	xattrSizeMax  = 65536
	xattrArgsSize = 16 // struct xattr_args, version 0
	fsxattrSize   = 28 // struct fsxattr
	atFdcwd       = -100
	// File attribute ioctls (linux/fs.h).
	fsIocSetflags            = 0x40086602
	fsIoc32Setflags          = 0x40046602
	fsIocFssetxattr          = 0x401c5820
	fsIocEnableVerity        = 0x40806685
	fsIocSetEncryptionPolicy = 0x800c6613
)

// Config is what a Supervisor needs.
type Config struct {
	Policy Policy
	// Listener is the filter's listener (seccomp.LoadNotifying);
	// KillableWait is what LoadNotifying said of it.
	Listener     int
	KillableWait bool
	// Goarch names the calls (runtime.GOARCH).
	Goarch string
	// Worker sets up each thread calls are handled on: it must leave it
	// no capabilities. It is called on the locked thread.
	Worker func() error
	// NetWorker sets up each thread inet and inet6 sockets are connected
	// on: no capabilities, and the payload's Landlock network rules, if
	// there are any. (Those threads are in a Landlock domain of their own,
	// which may not read the payload's memory: the calls are handled on
	// workers.)
	NetWorker func() error
	// Landlock are the payload's Landlock rules: where they give what an
	// entry call needs, the kernel does the call.
	Landlock []landlock.PathRule
	// Abstract connects abstract unix addresses: a thread whose Landlock
	// domain is the one the payload's was made in, so the kernel lets it
	// reach the sandbox's abstract sockets and no others. Nil where the
	// kernel cannot scope abstract sockets (Landlock ABI < 6); a worker
	// connects them then.
	Abstract *Thread
	// Listen performs listen(sock, backlog) on the payload's socket, taken
	// with pidfd_getfd, if the policy allows it, and returns its errno:
	// where TCP binding is restricted, listen() on a socket never bound
	// would take a port no bind() rule saw. Nil: listen() is not handed
	// over.
	Listen func(sock, backlog int) unix.Errno
	// Refusals, when set, collects the calls the supervisor fails
	// (--trace-denials).
	Refusals *Refusals
}

// Supervisor answers the notifications of one listener.
type Supervisor struct {
	cfg   Config
	byNR  map[int32]call
	root  int // "/", which the payload cannot change (chroot is refused)
	pool  *pool
	net   *pool
	stop  [2]int // a pipe: closing the write end ends serve
	mu    sync.Mutex
	again map[uint64]bool // sockets connected for a call that was then interrupted
}

// Start begins answering the listener's notifications.
func Start(cfg Config) (*Supervisor, error) {
	s := &Supervisor{cfg: cfg, byNR: map[int32]call{}, again: map[uint64]bool{}}
	for name, c := range calls() {
		if nr, ok := seccomp.Number(cfg.Goarch, name); ok {
			s.byNR[int32(nr)] = c
		}
	}
	var err error
	if s.root, err = unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
		return nil, fmt.Errorf("supervisor: open /: %w", err)
	}
	if err := unix.Pipe2(s.stop[:], unix.O_CLOEXEC); err != nil {
		unix.Close(s.root)
		return nil, fmt.Errorf("supervisor: pipe: %w", err)
	}
	s.pool = newPool(cfg.Worker, 64)
	s.net = newPool(cfg.NetWorker, 64)
	ready := make(chan error, 1)
	go s.serve(ready)
	if err := <-ready; err != nil {
		unix.Close(s.root)
		unix.Close(s.stop[0])
		unix.Close(s.stop[1])
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	return s, nil
}

// Stop stops taking calls. It does not wait for the calls being answered
// (a connect may block for minutes): the process that stops a supervisor
// is about to exit, and the sandbox is gone.
func (s *Supervisor) Stop() {
	unix.Close(s.stop[1])
}

// serve receives the notifications on a thread of its own, set up as a
// worker: calls that cannot block are answered there, with no hand-over
// (each costs a thread wake-up); connects, which can block for minutes,
// go to the pool.
func (s *Supervisor) serve(ready chan<- error) {
	// Never unlocked: see StartThread.
	runtime.LockOSThread()
	if err := s.cfg.Worker(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for {
		fds := []unix.PollFd{{Fd: int32(s.cfg.Listener), Events: unix.POLLIN}, {Fd: int32(s.stop[0]), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			return // stopped
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
				return // no process uses the filter any more
			}
			continue
		}
		n, err := seccomp.Receive(s.cfg.Listener)
		if err != nil {
			continue // the caller was interrupted before its call was read
		}
		if c, ok := s.byNR[n.Nr]; !ok || c.op != opConnect {
			s.answer(n)
			continue
		}
		s.pool.run(func(setupErr error) {
			if setupErr != nil {
				s.reply(n, 0, unix.EPERM)
				return
			}
			s.answer(n)
		})
	}
}

// answer handles n and answers it.
func (s *Supervisor) answer(n seccomp.Notification) {
	val, err := s.handle(n)
	switch {
	case errors.Is(err, errContinue):
		_ = seccomp.Continue(s.cfg.Listener, n.ID)
	case !errors.Is(err, errAnswered):
		if errno := errnoOf(err); errno != 0 && s.cfg.Refusals != nil {
			s.refused(n, errno)
		}
		s.reply(n, val, err)
	}
}

// errContinue lets a call go on in the kernel as it was made;
// errAnswered says the call was answered already (with a descriptor).
var (
	errContinue = errors.New("continue")
	errAnswered = errors.New("answered")
)

func (s *Supervisor) reply(n seccomp.Notification, val int64, err error) error {
	return seccomp.Respond(s.cfg.Listener, n.ID, val, errnoOf(err))
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EPERM
}

// handle decides and performs one call, on a thread without capabilities.
func (s *Supervisor) handle(n seccomp.Notification) (int64, error) {
	c, ok := s.byNR[n.Nr]
	if !ok {
		return 0, unix.EPERM
	}
	t := &target{s: s, n: n, tid: int(n.Pid), pidfd: -1}
	defer t.close()
	switch c.op {
	case opPid, opPidWhich:
		tgid, err := t.tgid()
		if err != nil {
			return 0, err
		}
		if !s.valid(n) {
			return 0, unix.ESRCH
		}
		if selfTarget(c, n.Args, t.tid, tgid) {
			return 0, errContinue
		}
		return 0, unix.EPERM
	case opConnect:
		return 0, s.connect(t, n)
	case opListen:
		return 0, s.listen(t, n)
	case opIoctl:
		return 0, s.ioctl(t, n)
	case opChmod, opChown, opUtimes, opSetxattr, opRemovexattr:
		return 0, s.metadata(t, c, n)
	}
	return s.entryCall(t, c, n)
}

// listen performs the caller's listen() on its very socket, so that no
// other thread can swap the descriptor between a check and the call.
func (s *Supervisor) listen(t *target, n seccomp.Notification) error {
	if s.cfg.Listen == nil {
		return unix.EPERM
	}
	sock, err := t.socket(int(int32(n.Args[0])))
	if err != nil {
		return err
	}
	if errno := s.cfg.Listen(sock, int(int32(n.Args[1]))); errno != 0 {
		return errno
	}
	return nil
}

func (s *Supervisor) valid(n seccomp.Notification) bool { return seccomp.Valid(s.cfg.Listener, n.ID) }

// target is the caller of one notification and what was opened for it.
type target struct {
	s      *Supervisor
	n      seccomp.Notification
	tid    int
	tgidV  int
	pidfd  int
	opened []int
}

func (t *target) close() {
	for _, fd := range t.opened {
		unix.Close(fd)
	}
	if t.pidfd >= 0 {
		unix.Close(t.pidfd)
	}
}

func (t *target) keep(fd int) int {
	t.opened = append(t.opened, fd)
	return fd
}

// tgid is the caller's process id.
func (t *target) tgid() (int, error) {
	if t.tgidV != 0 {
		return t.tgidV, nil
	}
	st, err := procfs.ReadStatus(t.tid)
	if err != nil {
		return 0, unix.ESRCH
	}
	tgid, ok := st.Int("Tgid", false)
	if !ok {
		return 0, unix.ESRCH
	}
	t.tgidV = tgid
	return tgid, nil
}

func (t *target) who() (caller, error) {
	tgid, err := t.tgid()
	return caller{tid: t.tid, tgid: tgid}, err
}

// socket takes the caller's descriptor n, the very open file: a connect
// must act on the caller's socket. The pidfd is opened for the calling
// thread (its own descriptor table), and the notification checked still
// to wait afterwards: the pid then named the caller when it was opened.
func (t *target) socket(n int) (int, error) {
	if t.pidfd < 0 {
		pidfd, err := unix.PidfdOpen(t.tid, unix.PIDFD_THREAD)
		if errors.Is(err, unix.EINVAL) {
			// Before 6.9: the process's table, which its threads share.
			tgid, terr := t.tgid()
			if terr != nil {
				return -1, terr
			}
			pidfd, err = unix.PidfdOpen(tgid, 0)
		}
		if err != nil {
			return -1, unix.ESRCH
		}
		t.pidfd = pidfd
		if !t.s.valid(t.n) {
			return -1, unix.ESRCH
		}
	}
	fd, err := unix.PidfdGetfd(t.pidfd, n, 0)
	if err != nil {
		return -1, err
	}
	return t.keep(fd), nil
}

// object opens, O_PATH, what the caller's descriptor n refers to, through
// /proc/TID/fd/N: the same file, without pidfd_getfd (which container
// profiles refuse without CAP_SYS_PTRACE), and enough for any metadata
// call. opath says whether the caller's descriptor is an O_PATH one, on
// which the kernel refuses such calls (EBADF). The notification is checked
// to still wait afterwards: the tid then named the caller.
func (t *target) object(n int32) (fd int, opath bool, err error) {
	proc := "/proc/" + strconv.Itoa(t.tid)
	fd, err = unix.Open(proc+"/fd/"+strconv.Itoa(int(n)), unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return -1, false, unix.EBADF
		}
		return -1, false, err
	}
	t.keep(fd)
	info, err := os.ReadFile(proc + "/fdinfo/" + strconv.Itoa(int(n)))
	if err != nil || !t.s.valid(t.n) {
		return -1, false, unix.ESRCH
	}
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, _ := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			opath = flags&unix.O_PATH != 0
		}
	}
	return fd, opath, nil
}

// dir opens the directory a path argument is taken from: the descriptor
// dirfd, or the calling thread's working directory.
func (t *target) dir(dirfd int32) (int, error) {
	if dirfd != atFdcwd {
		fd, _, err := t.object(dirfd)
		return fd, err
	}
	fd, err := unix.Open("/proc/"+strconv.Itoa(t.tid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, unix.ESRCH
	}
	t.keep(fd)
	if !t.s.valid(t.n) {
		return -1, unix.ESRCH
	}
	return fd, nil
}

// target opens, O_PATH, what a metadata call acts on: the file its path
// resolves to, or the one its descriptor refers to.
func (t *target) target(c call) (int, error) {
	args := t.n.Args
	onFd := func(n int32) (int, error) {
		fd, opath, err := t.object(n)
		if err == nil && opath {
			return -1, unix.EBADF
		}
		return fd, err
	}
	if c.path == none {
		return onFd(int32(args[c.fd]))
	}
	var flags uint64
	if c.flags != none {
		flags = args[c.flags]
	}
	dirfd := int32(atFdcwd)
	if c.dirfd != none {
		dirfd = int32(args[c.dirfd])
	}
	if c.times == timesTimespec && args[c.path] == 0 {
		// utimensat(fd, NULL, ...): fd itself (futimens).
		if dirfd == atFdcwd {
			return -1, unix.EFAULT
		}
		return onFd(dirfd)
	}
	path, err := readString(t.tid, args[c.path], unix.PathMax-1)
	if err != nil {
		return -1, err
	}
	start := -1 // an absolute path needs no start
	if !strings.HasPrefix(path, "/") {
		if start, err = t.dir(dirfd); err != nil {
			return -1, err
		}
	}
	if path == "" {
		if flags&unix.AT_EMPTY_PATH == 0 {
			return -1, unix.ENOENT
		}
		return start, nil
	}
	follow := c.follow && flags&unix.AT_SYMLINK_NOFOLLOW == 0
	fd, err := resolve(t.s.root, start, path, follow, t.who)
	if err != nil {
		return -1, err
	}
	return t.keep(fd), nil
}

// allowed reports whether the object fd may be changed: it lies in a
// writable path, or has no name anywhere.
func (s *Supervisor) allowed(fd int) error {
	loc, err := location(fd)
	if err != nil {
		return err
	}
	if loc != "" && !s.cfg.Policy.Writable(loc) {
		return unix.EPERM
	}
	return nil
}

// metadata performs a metadata call on the object it acts on, an O_PATH
// descriptor: through AT_EMPTY_PATH, or its /proc/self/fd link, which
// names exactly that object (a symlink, for the calls that do not follow
// one).
func (s *Supervisor) metadata(t *target, c call, n seccomp.Notification) error {
	fd, err := t.target(c)
	if err != nil {
		return err
	}
	if err := s.allowed(fd); err != nil {
		return err
	}
	args := n.Args
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	switch c.op {
	case opChmod:
		mode := uint32(args[c.a])
		err := fchmodat2(fd, mode)
		if errors.Is(err, unix.ENOSYS) {
			return unix.Chmod(self, mode)
		}
		return err
	case opChown:
		return unix.Fchownat(fd, "", int(int32(args[c.a])), int(int32(args[c.b])), unix.AT_EMPTY_PATH)
	case opUtimes:
		ts, err := readTimes(t.tid, args[c.a], c.times)
		if err != nil {
			return err
		}
		return utimensat(fd, ts)
	case opSetxattr:
		return s.setxattr(t, c, self)
	case opRemovexattr:
		name, err := readXattrName(t.tid, args[c.a])
		if err != nil {
			return err
		}
		return unix.Removexattr(self, name)
	}
	return unix.EPERM
}

func (s *Supervisor) setxattr(t *target, c call, self string) error {
	args := t.n.Args
	name, err := readXattrName(t.tid, args[c.a])
	if err != nil {
		return err
	}
	valueAt, size, flags := args[c.b], args[c.c], uint64(0)
	if c.d != none {
		flags = args[c.d]
	} else {
		// setxattrat: the value, its size and the flags are in a struct.
		if size < xattrArgsSize {
			return unix.EINVAL
		}
		b, err := readMem(t.tid, args[c.b], xattrArgsSize)
		if err != nil {
			return err
		}
		valueAt = binary.LittleEndian.Uint64(b)
		size = uint64(binary.LittleEndian.Uint32(b[8:]))
		flags = uint64(binary.LittleEndian.Uint32(b[12:]))
	}
	if size > xattrSizeMax {
		return unix.E2BIG
	}
	value, err := readMem(t.tid, valueAt, int(size))
	if err != nil {
		return err
	}
	return unix.Setxattr(self, name, value, int(flags))
}

func (s *Supervisor) ioctl(t *target, n seccomp.Notification) error {
	req := uint32(n.Args[1])
	if req == fsIocEnableVerity || req == fsIocSetEncryptionPolicy {
		return unix.EPERM
	}
	size := 4
	if req == fsIocFssetxattr {
		size = fsxattrSize
	} else if req != fsIocSetflags && req != fsIoc32Setflags {
		return unix.EPERM
	}
	obj, opath, err := t.object(int32(n.Args[0]))
	if err == nil && opath {
		err = unix.EBADF
	}
	if err != nil {
		return err
	}
	if err := s.allowed(obj); err != nil {
		return err
	}
	arg, err := readMem(t.tid, n.Args[2], size)
	if err != nil {
		return err
	}
	// The ioctls need an open file: the object, opened again as chattr
	// opens it.
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(obj), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	t.keep(fd)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&arg[0])))
	if errno != 0 {
		return errno
	}
	return nil
}

func readXattrName(tid int, at uint64) (string, error) {
	name, err := readString(tid, at, xattrNameMax)
	if errors.Is(err, unix.ENAMETOOLONG) {
		return "", unix.ERANGE
	}
	if err == nil && name == "" {
		return "", unix.ERANGE
	}
	return name, err
}

// readTimes reads a utimes call's times as timespecs; nil means now.
func readTimes(tid int, at uint64, kind timesKind) ([]unix.Timespec, error) {
	if at == 0 {
		return nil, nil
	}
	switch kind {
	case timesUtimbuf:
		b, err := readMem(tid, at, 16)
		if err != nil {
			return nil, err
		}
		return []unix.Timespec{{Sec: int64(binary.LittleEndian.Uint64(b))}, {Sec: int64(binary.LittleEndian.Uint64(b[8:]))}}, nil
	case timesTimeval:
		b, err := readMem(tid, at, 32)
		if err != nil {
			return nil, err
		}
		ts := make([]unix.Timespec, 2)
		for i := range ts {
			sec, usec := int64(binary.LittleEndian.Uint64(b[16*i:])), int64(binary.LittleEndian.Uint64(b[16*i+8:]))
			if usec < 0 || usec >= 1e6 {
				return nil, unix.EINVAL
			}
			ts[i] = unix.Timespec{Sec: sec, Nsec: usec * 1000}
		}
		return ts, nil
	}
	b, err := readMem(tid, at, 32)
	if err != nil {
		return nil, err
	}
	return []unix.Timespec{
		{Sec: int64(binary.LittleEndian.Uint64(b)), Nsec: int64(binary.LittleEndian.Uint64(b[8:]))},
		{Sec: int64(binary.LittleEndian.Uint64(b[16:])), Nsec: int64(binary.LittleEndian.Uint64(b[24:]))},
	}, nil
}

func utimensat(fd int, ts []unix.Timespec) error {
	empty := [1]byte{}
	var times unsafe.Pointer
	if ts != nil {
		times = unsafe.Pointer(&ts[0])
	}
	_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), uintptr(times), unix.AT_EMPTY_PATH, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// fchmodat2 changes the mode of the object fd (6.6; ENOSYS before).
func fchmodat2(fd int, mode uint32) error {
	empty := [1]byte{}
	_, _, errno := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), uintptr(mode), unix.AT_EMPTY_PATH, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// connect performs a connect(2): a pathname unix address only to a socket
// in a writable path, the rest on threads whose Landlock domain decides as
// the payload's would.
func (s *Supervisor) connect(t *target, n seccomp.Notification) error {
	sock, err := t.socket(int(int32(n.Args[0])))
	if err != nil {
		return err
	}
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return err
	}
	size := uint32(n.Args[2])
	if size > maxSockaddr {
		return unix.EINVAL
	}
	addr, err := readMem(t.tid, n.Args[1], int(size))
	if err != nil {
		return err
	}
	if domain == unix.AF_INET || domain == unix.AF_INET6 {
		if setupErr := s.net.do(func() { err = rawConnect(sock, addr) }); setupErr != nil {
			return unix.EPERM
		}
		return s.connected(sock, n, err)
	}
	if domain != unix.AF_UNIX || len(addr) <= 2 || binary.LittleEndian.Uint16(addr) != unix.AF_UNIX {
		// No path: netlink, a unix socket's AF_UNSPEC.
		return s.connected(sock, n, rawConnect(sock, addr))
	}
	if addr[2] == 0 {
		if s.cfg.Abstract == nil {
			return s.connected(sock, n, rawConnect(sock, addr))
		}
		s.cfg.Abstract.Do(func() { err = rawConnect(sock, addr) })
		return s.connected(sock, n, err)
	}
	path := string(addr[2:])
	if i := strings.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	start := -1
	if !strings.HasPrefix(path, "/") {
		if start, err = t.dir(atFdcwd); err != nil {
			return err
		}
	}
	obj, err := resolve(s.root, start, path, true, t.who)
	if err != nil {
		return err
	}
	t.keep(obj)
	var st unix.Stat_t
	if err := unix.Fstat(obj, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return unix.ECONNREFUSED
	}
	if loc, err := location(obj); err != nil || loc == "" || !s.cfg.Policy.Writable(loc) {
		return unix.EACCES
	}
	via := sockaddrUnix("/proc/self/fd/" + strconv.Itoa(obj))
	return s.connected(sock, n, rawConnect(sock, via))
}

// connected answers EISCONN with success for a socket the supervisor
// connected for a call that was interrupted before the answer reached it
// (kernels without the killable wait make the call again).
func (s *Supervisor) connected(sock int, n seccomp.Notification, err error) error {
	if s.cfg.KillableWait {
		return err
	}
	var st unix.Stat_t
	if unix.Fstat(sock, &st) != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(err, unix.EISCONN) && s.again[st.Ino] {
		delete(s.again, st.Ino)
		return nil
	}
	if err == nil && !s.valid(n) && len(s.again) < 1024 {
		s.again[st.Ino] = true
	}
	return err
}

func sockaddrUnix(path string) []byte {
	b := make([]byte, 2+len(path)+1)
	binary.LittleEndian.PutUint16(b, unix.AF_UNIX)
	copy(b[2:], path)
	return b
}

func rawConnect(fd int, addr []byte) error {
	var p unsafe.Pointer
	if len(addr) > 0 {
		p = unsafe.Pointer(&addr[0])
	}
	_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(p), uintptr(len(addr)))
	if errno != 0 {
		return errno
	}
	return nil
}
