package launch

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

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/seccomp"
)

// The init inherits these descriptors from the parent.
const (
	SpecFD   = 3 // the spec, then held open by the parent as a lifeline
	StatusFD = 4 // Msg lines to the parent
)

// Forwarded are the signals the init passes on to the payload.
var Forwarded = []os.Signal{
	unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT,
	unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH,
}

// RunInit is pid 1 of the sandbox. It builds the sandbox in the order that
// keeps each step possible and each protection in force: mounts and
// pivot_root (Landlock would forbid them), Landlock, capabilities and
// NO_NEW_PRIVS, seccomp last; then it starts the payload from the same
// locked thread, reaps every process and exits with the payload's status.
func RunInit() int {
	// Capabilities, NO_NEW_PRIVS and (later) seccomp are per thread: the
	// payload must be forked from the thread that dropped them.
	runtime.LockOSThread()
	debug.SetGCPercent(-1)
	sigs, notified := notifySignals()
	status := os.NewFile(StatusFD, "status")
	fail := func(code int, err error) int {
		Send(status, Failure(code, err))
		return code
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_PDEATHSIG: %w", err))
	}
	// Nothing the caller's process leaked may reach the payload.
	if err := unix.CloseRange(SpecFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail(ExitSetup, fmt.Errorf("close_range: %w", err))
	}
	spec, err := ReadSpec(os.NewFile(SpecFD, "spec"))
	if err != nil {
		return fail(ExitSetup, err)
	}
	if parentGone() {
		return ExitSetup
	}
	step := stepLogger(spec.Verbose, status)
	if spec.Loopback {
		if err := ns.LoopbackUp(); err != nil {
			return fail(ExitSetup, err)
		}
		step("lo up")
		addLoopbackAddrs(spec.LoopbackAddrs, step)
	}
	// Once lo is up (and has 127.0.0.1), nsrun may bind there: it does so
	// while the mounts are built.
	var netReady <-chan error
	if spec.Net {
		netReady = serveSockets()
	}
	if err := mounts.Build(spec.Plan); err != nil {
		if errors.Is(err, mounts.ErrProcRefused) {
			err = errs.New("%w; %s binds that /proc read-only instead (reported as partial: it lists the processes outside the sandbox)", err, errs.ProcHost)
		}
		if errors.Is(err, mounts.ErrSysRefused) {
			err = errs.New("%w; %s binds that /sys read-only instead (it shows the host's network interfaces and cgroup tree)", err, errs.SysHost)
		}
		return fail(ExitSetup, err)
	}
	step("mounts built, old root detached")
	// A non-dumpable init cannot be ptraced by the payload, whose
	// capabilities are fewer than those of the init's other threads. Not
	// before the mounts: a non-dumpable process's /proc/self/fd is root's,
	// and an overlay's layers are named there.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(ExitSetup, fmt.Errorf("prctl PR_SET_DUMPABLE: %w", err))
	}
	if spec.Hostname != "" {
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return fail(ExitSetup, fmt.Errorf("sethostname %q: %w", spec.Hostname, err))
		}
	}
	// The pty before Landlock and seccomp, like the mounts it lives in.
	var term *sandboxTTY
	if spec.TTY != nil {
		if term, err = openSandboxTTY(spec.TTY); err != nil {
			return fail(ExitSetup, err)
		}
		step("terminal /dev/pts/0 allocated")
	}
	path, code, err := lockDown(spec, step, status)
	if err != nil {
		return fail(code, err)
	}

	if netReady != nil {
		if err := <-netReady; err != nil {
			return fail(ExitSetup, err)
		}
		step("network listeners in place")
	}
	<-notified
	if spec.Session {
		return serveSession(spec, status, sigs)
	}
	if spec.AsPid1 {
		return execAsPid1(spec, path, term, status)
	}
	// The payload's pidfd is for nsrun, which takes it (pidfd_getfd) to
	// learn the payload's pid outside; held until the init exits.
	pidfd := -1
	attr := &syscall.ProcAttr{Env: spec.Env, Files: PayloadFiles([]uintptr{0, 1, 2}, spec.ExtraFiles), Sys: &syscall.SysProcAttr{PidFD: &pidfd}}
	if term != nil {
		term.payloadAttr(attr)
	}
	pid, err := syscall.ForkExec(path, payloadArgv(spec), attr)
	if err != nil {
		err = fmt.Errorf("exec %s: %w", spec.Args[0], err)
		return fail(execCode(err), err)
	}
	CloseExtraFiles(spec.ExtraFiles)
	Send(status, Msg{Kind: MsgStarted, Pid: pid, Code: pidfd})
	step("payload started")
	return supervisePayload(pid, term, status, sigs, endNamespace, nil)
}

// execAsPid1 makes the init the payload (Spec.AsPid1): once nsrun knows
// it started, the init executes it in its own place, as pid 1. Nothing is
// left to reap the sandbox's orphans, pass signals on or report the exit:
// nsrun learns the end from the init's own status, and the kernel ends
// every process of the PID namespace when its pid 1 ends.
func execAsPid1(spec *Spec, path string, term *sandboxTTY, status *os.File) int {
	if term != nil {
		err := errors.New("the payload as pid 1 takes no terminal of the sandbox's")
		Send(status, Failure(ExitSetup, err))
		return ExitSetup
	}
	Send(status, Msg{Kind: MsgStarted, Pid: 1})
	if !awaitControl(CtlStarted) {
		return ExitSetup // nsrun is gone
	}
	if _, err := PlaceExtraFiles(spec.ExtraFiles, int(status.Fd())); err != nil {
		fmt.Fprintf(os.Stderr, "nsrun: %v\n", err)
		return ExitSetup
	}
	err := unix.Exec(path, payloadArgv(spec), spec.Env)
	fmt.Fprintf(os.Stderr, "nsrun: exec %s: %v\n", spec.Args[0], err)
	return execCode(err)
}

// awaitControl reads the parent's control bytes until want, false when the
// parent closed its end first.
func awaitControl(want byte) bool {
	var b [1]byte
	for {
		n, err := unix.Read(SpecFD, b[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false
		}
		if b[0] == want {
			return true
		}
	}
}

// payloadArgv is the payload's argv: Args, with Argv0 first where set.
func payloadArgv(spec *Spec) []string {
	if spec.Argv0 == "" {
		return spec.Args
	}
	return append([]string{spec.Argv0}, spec.Args[1:]...)
}

// supervisePayload waits for the payload pid and returns its exit status, after
// reporting it with what every process reaped used: it reaps every child,
// passes signals on to the payload, reports the payload's stops from its
// terminal and applies the parent's control bytes to it. When the payload
// ends, when the parent asks (CtlKill), goes away or its death signal
// (pdeathSignal, caught by the Landlock-only stage) comes, endAll kills and
// reaps the rest of the sandbox, returning the payload's status if it
// reaped the payload.
//
// Nothing is reaped before the parent has said it knows the payload's pid
// (CtlStarted): a payload that ends at once stays a zombie until then, so
// that its pid still names it when the parent asks. The payload may have
// ended before SIGCHLD was caught: it is looked for once then.
func supervisePayload(pid int, term *sandboxTTY, status *os.File, sigs <-chan os.Signal, endAll func(pid int) (unix.WaitStatus, bool), atExit func(*Msg)) int {
	control := make(chan byte)
	go readControl(control)
	known, pending := false, true
	for {
		kill := false
		select {
		case b, ok := <-control:
			switch {
			case !ok:
				endAll(pid) // the parent is gone
				return ExitSetup
			case b == CtlKill:
				kill = true
			case b == CtlStarted:
				known = true
				if !pending {
					continue
				}
			default:
				if term != nil {
					term.control(b, pid)
				}
				continue
			}
		case sig := <-sigs:
			switch {
			case sig == pdeathSignal:
				endAll(pid)
				return ExitSetup
			case sig != unix.SIGCHLD:
				_ = unix.Kill(pid, sig.(unix.Signal))
				continue
			case !known:
				pending = true
				continue
			}
		}
		var ws unix.WaitStatus
		ended := false
		if kill {
			if ws, ended = endAll(pid); !ended {
				// Reaped before: it was killed all the same.
				ws, ended = unix.WaitStatus(unix.SIGKILL), true
			}
		} else if ws, ended = Reap(pid); ended {
			endAll(pid)
		}
		switch {
		case ended:
			m := exitMsg(ws)
			m.Usage = childUsage()
			if atExit != nil {
				atExit(&m)
			}
			Send(status, m)
			return m.Code
		case ws.Stopped() && term != nil && terminalStop(ws.StopSignal()):
			// The payload was stopped from its terminal (Ctrl-Z, or
			// reading it from the background): nsrun stops too, as a
			// shell job would.
			Send(status, Msg{Kind: MsgStopped, Signal: int(ws.StopSignal())})
		}
	}
}

// exitMsg says how the payload ended: its status, or 128+N for signal N.
func exitMsg(ws unix.WaitStatus) Msg {
	m := Msg{Kind: MsgExit, Code: ws.ExitStatus()}
	if ws.Signaled() {
		m.Signal = int(ws.Signal())
		m.Code = 128 + m.Signal
	}
	return m
}

// notifySignals registers the signals a supervisor handles. Registering
// waits on the runtime's signal thread once per signal; doing it in the
// background keeps it off the startup path: wait for notified before the
// payload starts.
func notifySignals() (sigs chan os.Signal, notified chan struct{}) {
	sigs = make(chan os.Signal, 16)
	notified = make(chan struct{})
	go func() {
		signal.Notify(sigs, append([]os.Signal{unix.SIGCHLD}, Forwarded...)...)
		close(notified)
	}()
	return sigs, notified
}

// reap collects every child that exited, traced ones included, and returns
// the payload's status if it exited (ended) or just stopped.
func Reap(pid int) (payload unix.WaitStatus, ended bool) {
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

// endNamespace kills what is left of the sandbox, as its init, and reaps
// it all, returning the payload's status if it was among them. Killing -1
// from pid 1 reaches every process of the PID namespace and of those
// nested in it, and no other (were the init not pid 1, the payload's
// process group is what it kills); a process that forks meanwhile dies with its
// child, as the kernel refuses a fork with a fatal signal pending.
func endNamespace(pid int) (payload unix.WaitStatus, reaped bool) {
	// Waiting for every child is safe only once they are all dying (a
	// profile that refused kill would leave them running): else this
	// process's own exit ends its PID namespace.
	target := -pid
	if unix.Getpid() == 1 {
		target = -1
	}
	flags := unix.WALL
	if err := unix.Kill(target, unix.SIGKILL); err != nil && err != unix.ESRCH {
		flags |= unix.WNOHANG
	}
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, flags, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || got <= 0 {
			return payload, reaped // ECHILD: nothing left
		}
		if got == pid {
			payload, reaped = ws, true
		}
	}
}

// childUsage is what every process this one reaped used.
func childUsage() *Usage {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_CHILDREN, &ru) != nil {
		return nil
	}
	return &Usage{UserUS: TVMicros(ru.Utime), SystemUS: TVMicros(ru.Stime), MaxRSSKiB: ru.Maxrss}
}

func TVMicros(tv unix.Timeval) int64 { return int64(tv.Sec)*1e6 + int64(tv.Usec) }

func terminalStop(sig unix.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// parentGone reports whether the parent has already exited (the lifeline
// pipe is at end of file), closing the race in which it died before the
// parent-death signal was set.
func parentGone() bool {
	fds := []unix.PollFd{{Fd: SpecFD, Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLIN) != 0
}

// readControl passes on the bytes the parent writes after the spec and
// closes out when the parent closes its end: that is, when it exits.
func readControl(out chan<- byte) {
	var b [1]byte
	for {
		n, err := unix.Read(SpecFD, b[:])
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

func Send(f *os.File, m Msg) {
	if b, err := Frame(&m, "status"); err == nil {
		_, _ = f.Write(b)
	}
}

// stepLogger reports each step to nsrun, which logs it: the init's own
// streams may be the payload's, and are never the caller's terminal.
func stepLogger(verbose bool, status *os.File) func(string) {
	start := time.Now()
	return func(s string) {
		if verbose {
			Send(status, Msg{Kind: MsgLog, Msg: fmt.Sprintf("%s (%.2f ms)", s, float64(time.Since(start).Microseconds())/1000)})
		}
	}
}

// lockDown applies the last layers on the calling thread, in the order
// that keeps each possible: Landlock (after the last mount: mount and
// pivot_root fail under it), capabilities and NO_NEW_PRIVS, seccomp last
// so nothing above is filtered. Then it enters the working directory and
// finds the command, returning the exit code that goes with an error.
func lockDown(spec *Spec, step func(string), status *os.File) (path string, code int, err error) {
	if err := ApplyRlimits(spec.Rlimits); err != nil {
		return "", ExitSetup, err
	}
	if spec.Landlock != nil {
		if err := landlock.Apply(*spec.Landlock); err != nil {
			return "", ExitSetup, err
		}
		step("landlock applied")
	}
	if spec.Caps != nil {
		if err := ns.KeepCapabilities(spec.Caps.Keep, spec.Caps.Bounding|spec.Caps.Keep, spec.Caps.Ambient); err != nil {
			return "", ExitSetup, err
		}
		step(fmt.Sprintf("capabilities %#x kept, no_new_privs set", spec.Caps.Keep))
	} else {
		if err := ns.DropPrivileges(); err != nil {
			return "", ExitSetup, err
		}
		step("capabilities dropped, no_new_privs set")
	}
	for i, prog := range spec.Seccomp {
		if i == 0 && spec.HoldListener {
			// Kept open, never read, closed with the init: the filter
			// notifies nothing.
			if _, _, err := seccomp.LoadListener(prog); err != nil {
				return "", ExitSetup, err
			}
			continue
		}
		if !seccomp.Notifies(prog) {
			if err := seccomp.Load(prog); err != nil {
				return "", ExitSetup, err
			}
			continue
		}
		listener, _, err := seccomp.LoadListener(prog)
		if err != nil {
			return "", ExitSetup, err
		}
		if err := handOver(listener, status); err != nil {
			return "", ExitSetup, err
		}
	}
	if len(spec.Seccomp) > 0 {
		step("seccomp filter loaded")
	}
	if err := unix.Chdir(spec.Dir); err != nil {
		return "", ExitSetup, fmt.Errorf("chdir %s inside the sandbox: %w", spec.Dir, err)
	}
	if spec.Session {
		return "", 0, nil // each exec names its command
	}
	path, err = lookPath(spec.Args[0], spec.Env)
	if err != nil {
		return "", execCode(err), err
	}
	return path, 0, nil
}

// handOver gives the parent a seccomp listener: it takes it with
// pidfd_getfd and says so on the spec pipe, before the payload can make
// a call that waits on it.
func handOver(listener int, status *os.File) error {
	defer unix.Close(listener)
	Send(status, Msg{Kind: MsgListener, Code: listener})
	var b [1]byte
	for {
		n, err := unix.Read(SpecFD, b[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n != 1 || b[0] != CtlListener {
			return fmt.Errorf("hand the seccomp listener to nsrun: no answer (%v)", err)
		}
		return nil
	}
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

// execCode maps a Failure to start the payload to 127 (not found) or 126
// (found, not executable).
func execCode(err error) int {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, errNotFound) {
		return ExitNotFound
	}
	return ExitNotExecutable
}
