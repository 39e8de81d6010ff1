package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/fdpass"
	"github.com/nsrun/nsrun/internal/wire"
)

// A session's init starts no payload of its own. Once it has confined its
// locked thread exactly as for a one-shot run (lockDown), it serves exec
// requests on its session socket (the descriptor Spec.ExtraFiles[0], a
// SOCK_SEQPACKET socket whose other end only the parent holds) and forks
// each command from that same thread, through the same fork and exec as a
// one-shot payload: every command inherits the thread's Landlock domain,
// seccomp filters, empty capability sets and no_new_privs, and nothing a
// request says can change them. Commands are children of the init, in the
// sandbox's namespaces; the init reaps them and everything they leave, and
// ends them all when the session ends.

// Session operations, the parent's requests.
const (
	SessionExec   = "exec"   // start Args with Env in Dir, the three descriptors sent as its streams
	SessionSignal = "signal" // send Signal to the exec ID's process group
	SessionStop   = "stop"   // end every process and exit
)

// Session replies, the init's.
const (
	SessionStarted = "started" // Pid is the command's pid inside
	SessionFailed  = "failed"  // Code 126 or 127, Msg says why
	SessionExited  = "exited"  // Code (128+Signal), Usage of the command
)

// SessionRequest is one message to a session's init; an exec carries the
// command's standard streams as three descriptors.
type SessionRequest struct {
	ID     uint64
	Op     string
	Args   []string
	Env    []string
	Dir    string // "" is the session's directory
	Signal int
	// TTY: the three streams are a terminal the caller made, which
	// becomes the command's controlling terminal in a session of its own.
	TTY bool
}

// SessionReply is one message from a session's init about the exec ID.
type SessionReply struct {
	ID     uint64
	Kind   string
	Pid    int
	Code   int
	Signal int
	Msg    string
	Usage  Usage
}

// MaxSessionMsg bounds a request (argv and environment).
const MaxSessionMsg = 1 << 20

type sessionRecv struct {
	req SessionRequest
	fds []int
}

// serveSession is a session init's life after lockDown, on the locked,
// confined thread. It returns the status the init exits with: 0 when
// asked to stop, 128+N for a signal N that ended it, ExitSetup when its
// parent went away.
func serveSession(spec *Spec, status *os.File, sigs <-chan os.Signal) int {
	// The init lives as long as the session: it must collect its garbage.
	debug.SetGCPercent(100)
	if len(spec.ExtraFiles) == 0 || spec.ExtraFiles[0] < 0 {
		Send(status, Failure(ExitSetup, errors.New("session: no session socket")))
		return ExitSetup
	}
	sock := spec.ExtraFiles[0]
	// nsrun finds the init as if it were the payload: the holder then
	// signals and waits for the session through it.
	self, err := unix.PidfdOpen(unix.Getpid(), 0)
	if err != nil {
		self = 0
	}
	Send(status, Msg{Kind: MsgStarted, Pid: unix.Getpid(), Code: self})
	control := make(chan byte)
	go readControl(control)
	requests := make(chan sessionRecv)
	go readRequests(sock, requests)
	execs := map[int]uint64{} // pid → exec ID, while it runs
	end := func(code int) int {
		endNamespace(-1)
		for pid, id := range execs {
			sendReply(sock, &SessionReply{ID: id, Kind: SessionExited, Pid: pid, Code: 128 + int(unix.SIGKILL), Signal: int(unix.SIGKILL)})
		}
		m := Msg{Kind: MsgExit, Code: code, Usage: childUsage()}
		if code > 128 {
			m.Signal = code - 128
		}
		Send(status, m)
		return code
	}
	for {
		select {
		case b, ok := <-control:
			if !ok {
				endNamespace(-1) // the parent is gone
				return ExitSetup
			}
			if b == CtlKill {
				return end(128 + int(unix.SIGKILL))
			}
		case sig := <-sigs:
			if sig == unix.SIGCHLD {
				reapExecs(sock, execs)
				continue
			}
			if sig == unix.SIGWINCH {
				continue
			}
			return end(128 + int(sig.(unix.Signal)))
		case r, ok := <-requests:
			if !ok {
				return end(0) // the holder closed its end: nobody can reach the session
			}
			switch r.req.Op {
			case SessionExec:
				startExec(sock, r, spec.Dir, execs)
			case SessionSignal:
				signalExec(r.req, execs)
			case SessionStop:
				return end(0)
			}
			closeFDs(r.fds)
		}
	}
}

// readRequests passes on the parent's requests and closes out when it
// closes its end.
func readRequests(sock int, out chan<- sessionRecv) {
	buf := make([]byte, MaxSessionMsg)
	for {
		n, fds, err := fdpass.Recv(sock, buf, 3)
		if err != nil {
			close(out)
			return
		}
		var r sessionRecv
		r.fds = fds
		if wire.Unmarshal(buf[:n], &r.req) != nil {
			closeFDs(fds)
			continue
		}
		out <- r
	}
}

// startExec forks the command of an exec request from this thread, the
// one that holds the sandbox's confinement, in a process group of its own
// (so that a timeout can end what it started), and says so.
func startExec(sock int, r sessionRecv, dir string, execs map[int]uint64) {
	reply := SessionReply{ID: r.req.ID, Kind: SessionFailed, Code: ExitSetup}
	defer func() { sendReply(sock, &reply) }()
	if len(r.fds) != 3 || len(r.req.Args) == 0 {
		reply.Msg = "session: an exec needs a command and three streams"
		return
	}
	if r.req.Dir != "" {
		dir = r.req.Dir
	}
	path, err := lookPathIn(r.req.Args[0], r.req.Env, dir)
	if err != nil {
		reply.Code, reply.Msg = execCode(err), err.Error()
		return
	}
	attr := &syscall.ProcAttr{Dir: dir, Env: r.req.Env, Files: []uintptr{uintptr(r.fds[0]), uintptr(r.fds[1]), uintptr(r.fds[2])},
		Sys: &syscall.SysProcAttr{Setpgid: true}}
	if r.req.TTY {
		// A session of its own, its process group the same number.
		attr.Sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	pid, err := syscall.ForkExec(path, r.req.Args, attr)
	if err != nil {
		if errors.Is(err, unix.ENOENT) && dir != "" {
			if _, serr := os.Stat(dir); serr != nil {
				reply.Msg = fmt.Sprintf("chdir %s inside the sandbox: %v", dir, serr)
				return
			}
		}
		err = fmt.Errorf("exec %s: %w", r.req.Args[0], err)
		reply.Code, reply.Msg = execCode(err), err.Error()
		return
	}
	execs[pid] = r.req.ID
	reply = SessionReply{ID: r.req.ID, Kind: SessionStarted, Pid: pid}
}

// lookPathIn is lookPath for a command whose directory is dir: a relative
// name is looked up from there.
func lookPathIn(name string, env []string, dir string) (string, error) {
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return lookPath(name, env)
}

// signalExec signals a running exec's process group, nothing once it has
// been reaped (its pid may name another process then).
func signalExec(req SessionRequest, execs map[int]uint64) {
	for pid, id := range execs {
		if id == req.ID && req.Signal > 0 {
			_ = unix.Kill(-pid, unix.Signal(req.Signal))
			return
		}
	}
}

// reapExecs collects every child that ended, and reports the execs'.
func reapExecs(sock int, execs map[int]uint64) {
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG|unix.WALL, &ru)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
		id, ok := execs[pid]
		if !ok || !(ws.Exited() || ws.Signaled()) {
			continue
		}
		delete(execs, pid)
		m := exitMsg(ws)
		reply := SessionReply{ID: id, Kind: SessionExited, Pid: pid, Code: m.Code, Signal: m.Signal,
			Usage: Usage{UserUS: TVMicros(ru.Utime), SystemUS: TVMicros(ru.Stime), MaxRSSKiB: ru.Maxrss}}
		sendReply(sock, &reply)
	}
}

func sendReply(sock int, r *SessionReply) {
	if b, err := wire.Marshal(r); err == nil {
		_ = fdpass.Send(sock, b)
	}
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
