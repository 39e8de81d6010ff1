package nsrun

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/seccomp"
)

// The init inherits these descriptors from the parent.
const (
	specFD   = 3 // the spec, then held open by the parent as a lifeline
	statusFD = 4 // initMsg lines to the parent
)

// forwarded are the signals the init passes on to the payload.
var forwarded = []os.Signal{
	unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT,
	unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH,
}

// runInit is pid 1 of the sandbox. It builds the sandbox in the order that
// keeps each step possible and each protection in force: mounts and
// pivot_root (Landlock would forbid them), Landlock, capabilities and
// NO_NEW_PRIVS, seccomp last; then it starts the payload from the same
// locked thread, reaps every process and exits with the payload's status.
func runInit() int {
	// Capabilities, NO_NEW_PRIVS and (later) seccomp are per thread: the
	// payload must be forked from the thread that dropped them.
	runtime.LockOSThread()
	debug.SetGCPercent(-1)
	// Registering signals waits on the runtime's signal thread once per
	// signal; doing it meanwhile keeps it off the startup path.
	sigs := make(chan os.Signal, 16)
	notified := make(chan struct{})
	go func() {
		signal.Notify(sigs, append([]os.Signal{unix.SIGCHLD}, forwarded...)...)
		close(notified)
	}()
	status := os.NewFile(statusFD, "status")
	fail := func(code int, err error) int {
		send(status, initMsg{Kind: msgError, Code: code, Msg: err.Error()})
		return code
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_PDEATHSIG: %w", err))
	}
	// Nothing the caller's process leaked may reach the payload.
	if err := unix.CloseRange(specFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail(ExitSetup, fmt.Errorf("close_range: %w", err))
	}
	spec, err := readSpec(os.NewFile(specFD, "spec"))
	if err != nil {
		return fail(ExitSetup, err)
	}
	if parentGone() {
		return ExitSetup
	}
	// A non-dumpable init cannot be ptraced by the payload, whose
	// capabilities are fewer than those of the init's other threads.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_DUMPABLE: %w", err))
	}
	step := stepLogger(spec.Verbose)
	if err := mounts.Build(spec.Plan); err != nil {
		return fail(ExitSetup, err)
	}
	step("mounts built, old root detached")
	if spec.Hostname != "" {
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return fail(ExitSetup, fmt.Errorf("sethostname %q: %w", spec.Hostname, err))
		}
	}
	if spec.Loopback {
		if err := ns.LoopbackUp(); err != nil {
			return fail(ExitSetup, err)
		}
		step("lo up")
	}
	path, code, err := lockDown(spec, step)
	if err != nil {
		return fail(code, err)
	}

	<-notified
	attr := &syscall.ProcAttr{Env: spec.Env, Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{}}
	if spec.Foreground {
		attr.Sys.Setpgid, attr.Sys.Foreground, attr.Sys.Ctty = true, true, 0
	}
	pid, err := syscall.ForkExec(path, spec.Args, attr)
	if err != nil {
		err = fmt.Errorf("exec %s: %w", spec.Args[0], err)
		return fail(execCode(err), err)
	}
	send(status, initMsg{Kind: msgStarted})
	step("payload started")

	control := make(chan byte)
	go readControl(control)
	for {
		select {
		case b, ok := <-control:
			if !ok {
				return ExitSetup // the parent is gone
			}
			resume(pid, b == ctlForeground)
		case sig := <-sigs:
			if sig != unix.SIGCHLD {
				_ = unix.Kill(pid, sig.(unix.Signal))
				continue
			}
			ws, ended := reap(pid)
			switch {
			case ended:
				m := exitMsg(ws)
				send(status, m)
				return m.Code
			case ws.Stopped() && spec.Foreground && terminalStop(ws.StopSignal()):
				// The payload has the terminal and was stopped from it
				// (Ctrl-Z): nsrun stops too, as a shell job would.
				send(status, initMsg{Kind: msgStopped})
			}
		}
	}
}

// reap collects every child that exited, traced ones included, and returns
// the payload's status if it exited (ended) or just stopped.
func reap(pid int) (payload unix.WaitStatus, ended bool) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, unix.WNOHANG|unix.WALL|unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || got <= 0 {
			return payload, ended
		}
		if got == pid && !ended {
			payload, ended = ws, ws.Exited() || ws.Signaled()
		}
	}
}

// exitMsg says how the payload ended: its status, or 128+N for signal N.
func exitMsg(ws unix.WaitStatus) initMsg {
	m := initMsg{Kind: msgExit, Code: ws.ExitStatus()}
	if ws.Signaled() {
		m.Signal = int(ws.Signal())
		m.Code = 128 + m.Signal
	}
	return m
}

func terminalStop(sig unix.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// resume continues the payload's process group after nsrun itself was
// continued, giving it the terminal back when nsrun is in the foreground.
func resume(pid int, foreground bool) {
	if foreground {
		setForeground(0, pid)
	}
	_ = unix.Kill(-pid, unix.SIGCONT)
}

// parentGone reports whether the parent has already exited (the lifeline
// pipe is at end of file), closing the race in which it died before the
// parent-death signal was set.
func parentGone() bool {
	fds := []unix.PollFd{{Fd: specFD, Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLIN) != 0
}

// readControl passes on the bytes the parent writes after the spec and
// closes out when the parent closes its end: that is, when it exits.
func readControl(out chan<- byte) {
	var b [1]byte
	for {
		n, err := unix.Read(specFD, b[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			close(out)
			return
		}
		out <- b[0]
	}
}

func send(f *os.File, m initMsg) {
	if b, err := frame(&m, "status"); err == nil {
		_, _ = f.Write(b)
	}
}

func stepLogger(verbose bool) func(string) {
	start := time.Now()
	return func(s string) {
		if verbose {
			fmt.Fprintf(os.Stderr, "nsrun: init: %s (%.2f ms)\n", s, ms(time.Since(start)))
		}
	}
}

// lockDown applies the last layers on the calling thread, in the order
// that keeps each possible: Landlock (after the last mount: mount and
// pivot_root fail under it), capabilities and NO_NEW_PRIVS, seccomp last
// so nothing above is filtered. Then it enters the working directory and
// finds the command, returning the exit code that goes with an error.
func lockDown(spec *initSpec, step func(string)) (path string, code int, err error) {
	if err := applyRlimits(spec.Rlimits); err != nil {
		return "", ExitSetup, err
	}
	if spec.Landlock != nil {
		if err := landlock.Apply(*spec.Landlock); err != nil {
			return "", ExitSetup, err
		}
		step("landlock applied")
	}
	if err := ns.DropPrivileges(); err != nil {
		return "", ExitSetup, err
	}
	step("capabilities dropped, no_new_privs set")
	for _, prog := range spec.Seccomp {
		if err := seccomp.Load(prog); err != nil {
			return "", ExitSetup, err
		}
	}
	if len(spec.Seccomp) > 0 {
		step("seccomp filter loaded")
	}
	if err := unix.Chdir(spec.Dir); err != nil {
		return "", ExitSetup, fmt.Errorf("chdir %s inside the sandbox: %w", spec.Dir, err)
	}
	path, err = lookPath(spec.Args[0], spec.Env)
	if err != nil {
		return "", execCode(err), err
	}
	return path, 0, nil
}

var errNotFound = errors.New("command not found")

// lookPath finds name in the payload's PATH, inside the sandbox.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, checkExecutable(name)
	}
	pathEnv := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	var denied error
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil {
			// Missing, or in a directory this user cannot search: as a
			// shell does, look further.
			continue
		}
		err := checkExecutable(p)
		if err == nil {
			return p, nil
		}
		if denied == nil {
			denied = err
		}
	}
	if denied != nil {
		return "", denied
	}
	return "", fmt.Errorf("%s: %w in PATH %s", name, errNotFound, pathEnv)
}

func checkExecutable(p string) error {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return fmt.Errorf("%s: %w", p, unix.EISDIR)
	}
	if err := unix.Access(p, unix.X_OK); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// execCode maps a failure to start the payload to 127 (not found) or 126
// (found, not executable).
func execCode(err error) int {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, errNotFound) {
		return ExitNotFound
	}
	return ExitNotExecutable
}
