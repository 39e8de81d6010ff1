//go:build linux

package main

import (
	"net"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostReachOp runs the operations that try to reach the host from a
// sandbox without namespaces: sockets, metadata, other processes.
func hostReachOp(op string, args []string) (out string, known bool, err error) {
	atoi := func(i int) int {
		n, _ := strconv.Atoi(args[i])
		return n
	}
	mode := func(i int) uint32 {
		m, _ := strconv.ParseUint(args[i], 8, 32)
		return uint32(m)
	}
	switch op {
	case "unix-listen-dial": // PATH: listen on a pathname socket, then connect to it
		os.Remove(args[0])
		ln, err := net.Listen("unix", args[0])
		if err != nil {
			return "", true, err
		}
		defer ln.Close()
		c, err := net.Dial("unix", args[0])
		if err == nil {
			c.Close()
		}
		return "ok", true, err
	case "abstract-listen-dial": // NAME: listen on an abstract socket, then connect to it
		ln, err := net.Listen("unix", "@"+args[0])
		if err != nil {
			return "", true, err
		}
		defer ln.Close()
		c, err := net.Dial("unix", "@"+args[0])
		if err == nil {
			c.Close()
		}
		return "ok", true, err
	case "dial-unix-procfd": // PATH: connect through /proc/self/fd/N of an O_PATH descriptor
		fd, err := unix.Open(args[0], unix.O_PATH, 0)
		if err != nil {
			return "", true, err
		}
		c, err := net.Dial("unix", "/proc/self/fd/"+strconv.Itoa(fd))
		if err == nil {
			c.Close()
		}
		return "ok", true, err
	case "open-rw": // PATH: open for reading and writing, without becoming its controlling terminal
		fd, err := unix.Open(args[0], unix.O_RDWR|unix.O_NOCTTY, 0)
		if err == nil {
			unix.Close(fd)
		}
		return "ok", true, err
	case "unix-dgram": // make a unix datagram socket
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return "ok", true, err
	case "sendto-unix": // PATH [raw|pair-raw]: send a datagram to a pathname socket
		// from a SOCK_DGRAM socket, a SOCK_RAW one (the kernel makes it a
		// datagram socket) or one of a SOCK_RAW socketpair.
		typ, pair := unix.SOCK_DGRAM, false
		if len(args) > 1 {
			typ, pair = unix.SOCK_RAW, args[1] == "pair-raw"
		}
		var fd int
		var err error
		if pair {
			var fds [2]int
			fds, err = unix.Socketpair(unix.AF_UNIX, typ, 0)
			if err == nil {
				defer unix.Close(fds[1])
			}
			fd = fds[0]
		} else {
			fd, err = unix.Socket(unix.AF_UNIX, typ, 0)
		}
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		return "ok", true, unix.Sendto(fd, []byte("x"), 0, &unix.SockaddrUnix{Name: args[0]})
	case "chmod": // PATH MODE
		return "ok", true, unix.Chmod(args[0], mode(1))
	case "fchmod": // PATH MODE: through a descriptor opened read-only
		f, err := os.Open(args[0])
		if err != nil {
			return "", true, err
		}
		defer f.Close()
		return "ok", true, unix.Fchmod(int(f.Fd()), mode(1))
	case "fchmod-opath": // PATH MODE: fchmodat2(O_PATH fd, "", AT_EMPTY_PATH)
		fd, err := unix.Open(args[0], unix.O_PATH, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		empty := [1]byte{}
		_, _, errno := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), uintptr(mode(1)), unix.AT_EMPTY_PATH, 0, 0)
		return "ok", true, errOf(errno)
	case "chmod-procfd": // PATH MODE: chmod("/proc/self/fd/N") of an O_PATH descriptor
		fd, err := unix.Open(args[0], unix.O_PATH, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		return "ok", true, unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), mode(1))
	case "chown": // PATH UID GID
		return "ok", true, unix.Chown(args[0], atoi(1), atoi(2))
	case "utimes": // PATH: set both times to the epoch
		return "ok", true, unix.UtimesNano(args[0], []unix.Timespec{{}, {}})
	case "setxattr": // PATH NAME VALUE
		return "ok", true, unix.Setxattr(args[0], args[1], []byte(args[2]), 0)
	case "removexattr": // PATH NAME
		return "ok", true, unix.Removexattr(args[0], args[1])
	case "chattr": // PATH: set FS_NOATIME_FL with FS_IOC_SETFLAGS
		f, err := os.Open(args[0])
		if err != nil {
			return "", true, err
		}
		defer f.Close()
		flags, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil {
			return "", true, err
		}
		flags |= 0x80 // FS_NOATIME_FL
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.FS_IOC_SETFLAGS, uintptr(unsafe.Pointer(&flags)))
		return "ok", true, errOf(errno)
	case "race-create": // DIR TARGET N: swap DIR between a directory and a symlink to TARGET while creating DIR/planted N times
		n := atoi(2)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				os.Remove(args[0])
				os.Symlink(args[1], args[0])
				os.Remove(args[0])
				os.Mkdir(args[0], 0o755)
			}
		}()
		created := 0
		for i := 0; i < n; i++ {
			if f, err := os.OpenFile(args[0]+"/planted", os.O_CREATE|os.O_WRONLY, 0o755); err == nil {
				f.Close()
				created++
				os.Remove(args[0] + "/planted")
			}
		}
		close(stop)
		<-done
		return strconv.Itoa(created), true, nil
	case "prlimit": // PID: lower its open-files limit
		lim := unix.Rlimit{Cur: 77, Max: 77}
		return "ok", true, unix.Prlimit(atoi(0), unix.RLIMIT_NOFILE, &lim, nil)
	case "setpriority": // WHICH WHO PRIO
		return "ok", true, unix.Setpriority(atoi(0), atoi(1), atoi(2))
	case "setaffinity": // PID
		var set unix.CPUSet
		set.Set(0)
		return "ok", true, unix.SchedSetaffinity(atoi(0), &set)
	case "setscheduler": // PID: SCHED_IDLE
		param := [1]int32{}
		_, _, errno := unix.Syscall(unix.SYS_SCHED_SETSCHEDULER, uintptr(atoi(0)), 5, uintptr(unsafe.Pointer(&param[0])))
		return "ok", true, errOf(errno)
	case "ioprio": // WHICH WHO: the idle class
		_, _, errno := unix.Syscall(unix.SYS_IOPRIO_SET, uintptr(atoi(0)), uintptr(atoi(1)), 3<<13)
		return "ok", true, errOf(errno)
	case "self-limits": // what may be done to oneself: prlimit, setpriority, affinity of one's thread
		lim := unix.Rlimit{Cur: 100, Max: 100}
		if err := unix.Prlimit(0, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
			return "", true, err
		}
		if err := unix.Prlimit(os.Getpid(), unix.RLIMIT_CORE, &unix.Rlimit{}, nil); err != nil {
			return "", true, err
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, 5); err != nil {
			return "", true, err
		}
		var set unix.CPUSet
		set.Set(0)
		return "ok", true, unix.SchedSetaffinity(unix.Gettid(), &set)
	}
	return "", false, nil
}

func errOf(errno unix.Errno) error {
	if errno != 0 {
		return errno
	}
	return nil
}
