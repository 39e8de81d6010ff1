//go:build linux

// Command helper runs inside test sandboxes and reports the outcome of one
// operation as "ok" or the errno's name, so tests can assert exact errors
// without depending on a shell's wording.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: helper OP [ARG...]")
		os.Exit(2)
	}
	out, err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Println(errnoName(err))
		return
	}
	fmt.Println(out)
}

func run(op string, args []string) (string, error) {
	switch op {
	case "write": // write PATH: create or truncate and write "x"
		return "ok", os.WriteFile(args[0], []byte("x"), 0o644)
	case "append": // append PATH
		f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return "", err
		}
		defer f.Close()
		_, err = f.WriteString("x")
		return "ok", err
	case "read":
		b, err := os.ReadFile(args[0])
		return strconv.Quote(string(b)), err
	case "mkdir":
		return "ok", os.Mkdir(args[0], 0o755)
	case "rename":
		return "ok", unix.Rename(args[0], args[1])
	case "exchange": // exchange A B: swap two names atomically
		return "ok", unix.Renameat2(unix.AT_FDCWD, args[0], unix.AT_FDCWD, args[1], unix.RENAME_EXCHANGE)
	case "remove":
		return "ok", unix.Unlink(args[0])
	case "rmdir":
		return "ok", unix.Rmdir(args[0])
	case "symlink":
		return "ok", os.Symlink(args[0], args[1])
	case "link":
		return "ok", os.Link(args[0], args[1])
	case "ls":
		ents, err := os.ReadDir(args[0])
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, " "), err
	case "kill": // kill PID SIG
		pid, _ := strconv.Atoi(args[0])
		sig, _ := strconv.Atoi(args[1])
		return "ok", unix.Kill(pid, unix.Signal(sig))
	case "mount":
		return "ok", unix.Mount("tmpfs", args[0], "tmpfs", 0, "")
	case "remount-rw":
		return "ok", unix.Mount("", args[0], "", unix.MS_REMOUNT|unix.MS_BIND, "")
	case "unshare-user":
		return "ok", unix.Unshare(unix.CLONE_NEWUSER)
	case "mknod":
		return "ok", unix.Mknod(args[0], unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
	case "chroot":
		return "ok", unix.Chroot("/")
	case "loopback": // listen and connect on 127.0.0.1
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		defer ln.Close()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return "", err
		}
		c.Close()
		return "ok", nil
	case "ifaces":
		ifs, err := net.Interfaces()
		var out []string
		for _, i := range ifs {
			state := "down"
			if i.Flags&net.FlagUp != 0 {
				state = "up"
			}
			out = append(out, i.Name+":"+state)
		}
		return strings.Join(out, " "), err
	case "dial-unix":
		c, err := net.Dial("unix", args[0])
		if err != nil {
			return "", err
		}
		c.Close()
		return "ok", nil
	case "tiocsti": // tiocsti FD: push one byte into the terminal's input
		fd, _ := strconv.Atoi(args[0])
		c := byte('#')
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		if errno != 0 {
			return "", errno
		}
		return "ok", nil
	case "open": // open PATH read-write, not as the controlling terminal
		fd, err := unix.Open(args[0], unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		unix.Close(fd)
		return "ok", nil
	case "ttys": // the descriptors of this process that are terminals, and what they are
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return "", err
		}
		var out []string
		for _, e := range ents {
			fd, _ := strconv.Atoi(e.Name())
			if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
				continue
			}
			l, _ := os.Readlink("/proc/self/fd/" + e.Name())
			out = append(out, e.Name()+":"+l)
		}
		return strings.Join(out, " "), nil
	case "ns": // the namespace links of this process
		var out []string
		for _, n := range []string{"user", "mnt", "pid", "ipc", "uts", "cgroup", "net"} {
			l, err := os.Readlink("/proc/self/ns/" + n)
			if err != nil {
				return "", err
			}
			out = append(out, l)
		}
		return strings.Join(out, " "), nil
	case "connect": // connect PORT [mptcp]: TCP to 127.0.0.1
		proto := unix.IPPROTO_TCP
		if len(args) > 1 && args[1] == "mptcp" {
			proto = 262
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, proto)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		port, _ := strconv.Atoi(args[0])
		return "ok", unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	case "bind": // bind PORT: TCP on 127.0.0.1
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		port, _ := strconv.Atoi(args[0])
		return "ok", unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	case "exec": // exec PATH: run it and report whether it could start
		err := unix.Exec(args[0], args, nil)
		return "", err
	case "pidfd": // pidfd_open PID
		pid, _ := strconv.Atoi(args[0])
		fd, err := unix.PidfdOpen(pid, 0)
		if err == nil {
			unix.Close(fd)
		}
		return "ok", err
	case "reopen-rw": // open PATH read-only, then again read-write through /proc/self/fd
		f, err := os.Open(args[0])
		if err != nil {
			return "", err
		}
		defer f.Close()
		g, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), os.O_RDWR, 0)
		if err == nil {
			g.Close()
		}
		return "ok", err
	case "flood": // flood N DIR: try to create N distinct files in DIR; "ok" when every one failed
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return "", err
		}
		for i := range n {
			fd, err := unix.Open(args[1]+"/f"+strconv.Itoa(i), unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
			if err == nil {
				unix.Close(fd)
				return "", errors.New("created")
			}
		}
		return "ok", nil
	case "connect-unroutable": // a TCP connect that only a network with routes could start
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		return "ok", unix.Connect(fd, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{192, 0, 2, 1}})
	case "ids":
		return fmt.Sprintf("%d %d %d", os.Getuid(), os.Getgid(), os.Getppid()), nil
	}
	if out, ok, err := runSocket(op, args); ok {
		return out, err
	}
	if out, ok, err := runFile(op, args); ok {
		return out, err
	}
	if out, ok, err := runDevice(op, args); ok {
		return out, err
	}
	if out, ok, err := netOp(op, args); ok {
		return out, err
	}
	if out, known, err := hostReachOp(op, args); known {
		return out, err
	}
	if out, ok, err := jobOp(op, args); ok {
		return out, err
	}
	if out, ok, err := filterOp(op, args); ok {
		return out, err
	}
	return "", fmt.Errorf("unknown op %q", op)
}

func errnoName(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name := unix.ErrnoName(errno); name != "" {
			return name
		}
	}
	return "error: " + err.Error()
}
