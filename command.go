package nsrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nsrun/nsrun/internal/watch"
	"github.com/nsrun/nsrun/reexec"
)

// Cmd is a command to run in a sandbox, used like exec.Cmd: set the
// fields, then Run, Output or CombinedOutput, or Start and Wait. Where a
// name is exec.Cmd's, it means what it means there; the differences are
// said at each. A Cmd cannot be reused.
type Cmd struct {
	// Policy is the sandbox; nil means the zero Policy.
	Policy *Policy
	// Args is the command and its arguments; Args[0] is looked up in the
	// PATH of Env, inside the sandbox.
	Args []string
	// Env is the payload's environment; nil means the caller's. A TMPDIR
	// that is not writable inside is replaced by /tmp. With a filtered
	// network the proxy variables point at nsrun's proxy, except those Env
	// sets (the caller's own, when Env is nil, are replaced). PWD is set
	// to the payload's working directory (Dir, made absolute), whatever
	// Env says, on Linux and macOS.
	Env []string
	// Dir is the working directory inside. Empty means the current
	// directory if it is visible inside, else the first writable directory
	// rule, else "/".
	Dir string
	// Stdin, Stdout and Stderr are as in exec.Cmd: nil means /dev/null, an
	// *os.File is passed as it is, anything else is copied through a pipe
	// (and Wait waits for the copying of the output to end).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// ExtraFiles are passed to the payload as descriptors 3, 4, ... (a nil
	// entry leaves that number closed), as in exec.Cmd; the payload gets
	// those and its three streams, and no other descriptor of this
	// process's or of nsrun's. Each is whatever it opens, whatever the
	// rules say: a directory's descriptor reaches the files under it. The
	// report lists them. Not on Windows.
	ExtraFiles []*os.File
	// TTY says whether the payload gets a pseudo-terminal of its own,
	// relayed to the terminal among Stdin, Stdout and Stderr (Linux); see
	// TTYMode. A terminal given as one of them may be any terminal the
	// caller holds, a pty slave of its own included; Signal(SIGWINCH) then
	// copies its size to the payload's pty.
	TTY TTYMode
	// WindowSize, if not zero, is the size of the payload's pty at start
	// instead of the caller's terminal's; Resize changes it later.
	WindowSize WindowSize
	// Timeout, if positive, ends the whole sandbox that long after the
	// payload started; Wait then returns an *ExitError with TimedOut set
	// and code 124. Without WaitDelay every process of the sandbox is
	// killed at once; with it, the payload gets SIGTERM first and the
	// whole sandbox is killed WaitDelay later if it has not ended (the
	// CLI's --timeout and --kill-after). Building the sandbox may take
	// Timeout too, no longer: then Start fails with code 124.
	Timeout time.Duration
	// Process is the payload once Start has returned: its pid as this
	// program sees it (not the pid inside the sandbox's PID namespace).
	// Process.Signal signals the payload alone and straight (Cmd.Signal
	// goes through the sandbox's init, as the CLI passes signals on);
	// Process.Kill kills it, which ends the whole sandbox: its init ends
	// every process left when the payload ends (without a PID namespace,
	// --isolation landlock, nsrun kills the payload's process group). Wait
	// the Cmd, not the Process; after Wait the Process is released.
	Process *os.Process
	// Cancel, as in exec.Cmd, is called when the context of CommandContext
	// is done before the sandbox ended; nil means nothing is done then
	// (WaitDelay still applies). CommandContext sets it to end the
	// sandbox: at once without WaitDelay, like exec.Cmd's Process.Kill;
	// with WaitDelay, by SIGTERM to the payload first (see WaitDelay).
	Cancel func() error
	// WaitDelay, as in exec.Cmd, bounds two waits: after the context is
	// done (or Timeout expired), the whole sandbox is killed if it has not
	// ended WaitDelay later; after the sandbox ended, the copying of its
	// output is cut off WaitDelay later, and Wait returns ErrWaitDelay if
	// nothing else went wrong.
	WaitDelay time.Duration
	// Log, if set, receives one line per setup step.
	Log io.Writer
	// Warnings, if set, receives one line per thing the caller may not
	// expect: a rule path that resolved through a symlink, a TMPDIR
	// replaced by /tmp, a process killed by the memory limit, forks
	// refused by the pids limit.
	Warnings io.Writer
	// ShareMemory, on Linux on amd64, has the sandbox's init share this
	// process's memory instead of a copy of it (CLONE_VM): nothing is
	// copied however large this program's heap, and a launch from a
	// running program costs about half the CPU (docs/BENCHMARKS.md).
	// The init keeps a capability the payload lacks, so the payload, which
	// has its user ids, cannot trace it or read its memory; this process
	// stays dumpable. What it costs, which is why it is asked for: the
	// sandbox's /proc hides pid 1 from the payload (hidepid=ptraceable:
	// the payload owns pid 1's /proc files, whose oom_score_adj is this
	// process's too, and whose cmdline would be this process's
	// arguments); pid 1 dumps no core; and a fault in the init is this
	// process's. Ignored elsewhere, under the race detector, under a
	// memory limit (whose OOM kill of pid 1 would kill this process with
	// it), for a payload that may dump core (a core limit above 0 hard:
	// until its exec it shares this memory), and where the sandbox gets
	// the Go init (Log says which init ran and whether it shared).
	ShareMemory bool

	ctx        context.Context
	report     Report
	sys        *sysCmd
	nilCtx     bool // made by CommandContext with a nil context
	started    bool // Start was called
	running    bool // Start succeeded
	waited     bool // Wait was called
	end        watch.Ending
	watchDone  chan struct{} // closed when the watcher is gone; nil without one
	childIO    []io.Closer   // the payload's ends of the pipes made here
	parentIO   []io.Closer   // this process's ends, closed after Wait
	payloadPid int           // Process.Pid, kept for after Process.Release
	session    *cmdSession   // a session's init, or a command in a session (session.go)
	// afterPrepare runs between checking the paths and building the
	// sandbox; tests use it to change the filesystem in that window.
	afterPrepare func()
}

// ErrWaitDelay is returned by Wait when the sandbox ended successfully but
// the copying of its output had to be cut off after WaitDelay. It is
// exec.ErrWaitDelay, so errors.Is matches either.
var ErrWaitDelay = errWaitDelay

// Command returns a Cmd that runs name with args under p.
func Command(p *Policy, name string, args ...string) *Cmd {
	return &Cmd{Policy: p, Args: append([]string{name}, args...)}
}

// CommandContext is Command with a context whose end ends the sandbox (see
// Cancel and WaitDelay); Wait's error then matches the context's error
// with errors.Is.
func CommandContext(ctx context.Context, p *Policy, name string, args ...string) *Cmd {
	c := Command(p, name, args...)
	// exec.CommandContext panics on a nil context; Start refuses it.
	c.ctx, c.nilCtx = ctx, ctx == nil
	c.Cancel = c.cancelDefault
	return c
}

var errNilContext = errors.New("nsrun: CommandContext with a nil context")

// Start builds the sandbox and starts the command in it. It returns once
// the payload has been started. When nothing was run it returns:
//   - ErrNoInit, ErrUnsupported (no backend for this system), or the
//     context's error (the context ended before or while the sandbox was
//     being built);
//   - a *SetupError: the sandbox could not be built (Code 125; 124 when
//     Timeout expired first), or the command could not be started in it
//     (126, 127);
//   - a *RuleError (a rule that cannot be applied), a *DirError (the
//     working directory), an *IDError (UID or GID), an *IsolationError (a
//     setting IsolationLandlock cannot give), a *SeccompError (the
//     seccomp profile), a *NetError (a network setting) or a *LimitError
//     (a memory, pids or CPU limit out of range, or one this host cannot
//     apply);
//   - another error for a misuse (Start twice, a nil context, Cancel
//     without CommandContext) or a failure of the host's (a file nsrun
//     could not read or make).
//
// Their messages name the setting at fault as a Go caller writes it
// (Policy.Isolation = IsolationLandlock), never a flag of the nsrun
// command, which words them with its flags. The cause, where there is
// one, is wrapped: errors.Is and errors.As see it. ExitCode gives the
// status the nsrun command exits with for each.
func (c *Cmd) Start() error {
	if c.started {
		return errors.New("nsrun: Start called twice")
	}
	c.started = true
	defer func() { c.report.Command = append([]string{}, c.Args...) }()
	err := c.checkStart()
	if err != nil {
		c.report.notBuilt(c.backend(), err)
	} else {
		err = c.start()
	}
	closeAll(c.childIO)
	c.childIO = nil
	if err != nil {
		closeAll(c.parentIO)
		c.parentIO = nil
		// The context's end or the timeout while the sandbox was being
		// built, not the kill either caused, is why nothing ran.
		if timedOut, ctxErr := c.end.Outcome(); c.end.EndedStart() && (timedOut || ctxErr != nil) {
			err = ctxErr
			if timedOut {
				err = &SetupError{Code: ExitTimeout, Msg: fmt.Sprintf("the timeout (%v) expired before the sandbox was built; nothing ran", c.Timeout)}
			}
			c.report.notBuilt(c.backend(), err)
			c.report.Exit.TimedOut, c.report.Exit.Cancelled = timedOut, !timedOut
		}
		return err
	}
	c.running = true
	if c.Process != nil {
		c.payloadPid = c.Process.Pid
	}
	c.report.ExtraFiles = describeExtraFiles(c.ExtraFiles)
	return nil
}

// checkStart refuses what cannot start at all, before anything is made.
func (c *Cmd) checkStart() error {
	if !initCalled.Load() {
		return ErrNoInit
	}
	if c.nilCtx {
		return errNilContext
	}
	if c.Cancel != nil && c.ctx == nil {
		return errors.New("nsrun: Cancel is set on a Cmd not made by CommandContext")
	}
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return err
		}
	}
	if err := c.checkSession(); err != nil {
		return err
	}
	return c.checkExtraFiles()
}

// Wait waits for the payload to exit and every process of the sandbox to
// end, and for the copying of its output. It returns nil when the payload
// exited 0; an *ExitError otherwise, or when the context or Timeout ended
// the sandbox (errors.Is(err, context.Canceled) then holds, or
// context.DeadlineExceeded); ErrWaitDelay when only the copying was cut
// off; another error when copying failed. Wait closes the pipes of
// StdinPipe, StdoutPipe and StderrPipe once the sandbox is gone: read them
// to their end before calling it.
func (c *Cmd) Wait() error {
	if !c.running {
		return errors.New("nsrun: Wait without a successful Start")
	}
	if c.waited {
		return errors.New("nsrun: Wait called twice")
	}
	c.waited = true
	ee, ioErr := c.wait()
	if c.watchDone != nil {
		<-c.watchDone
	}
	closeAll(c.parentIO)
	c.parentIO = nil
	if c.Process != nil {
		// The payload is gone: let go of its pidfd now rather than when
		// the collector finds it, keeping the pid for logs.
		_ = c.Process.Release()
		c.Process.Pid = c.payloadPid
	}
	timedOut, ctxErr := c.end.Outcome()
	switch {
	case timedOut:
		ee.Code, ee.TimedOut = ExitTimeout, true
	case ctxErr != nil:
		ee.Err = ctxErr
	}
	c.report.Exit.Code, c.report.Exit.TimedOut, c.report.Exit.Cancelled = ee.Code, ee.TimedOut, ee.Err != nil
	c.report.Exit.Signal = nil
	if ee.Signal != 0 {
		sig := ee.Signal
		c.report.Exit.Signal = &sig
	}
	if ee.Code == 0 && ee.Err == nil {
		return ioErr
	}
	return ee
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Report is what the sandbox enforced and how the payload ended; it is
// complete after Wait, or after Start failed.
func (c *Cmd) Report() *Report {
	r := c.report
	return &r
}

func (c *Cmd) warnf(format string, a ...any) {
	if c.Warnings != nil {
		fmt.Fprintf(c.Warnings, "nsrun: warning: "+format+"\n", a...)
	}
}

// policy is the Cmd's policy, or the default one when none is set.
func (c *Cmd) policy() *Policy {
	if c.Policy == nil {
		return &Policy{}
	}
	return c.Policy
}

func closeAll(cs []io.Closer) {
	for _, f := range cs {
		f.Close()
	}
}

// describeRun fills the report's account of what runs: where, and as
// whom (ids inside; negative where the system has none). Start adds the
// command.
func (c *Cmd) describeRun(r *Report, dir string, uid, gid int) {
	r.Dir = dir
	if uid >= 0 {
		r.UID = &uid
	}
	if gid >= 0 {
		r.GID = &gid
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// initCalled records that the program called Init, as it must before it
// starts a sandbox: the sandbox's init is the program started again, and
// only Init turns that second start into the init.
var initCalled atomic.Bool

// ErrNoInit is returned by Start when the program never called Init. The
// sandbox's init would have run the program's main a second time instead.
var ErrNoInit = errors.New("nsrun: Start before nsrun.Init: call nsrun.Init() first in main, and exit with its code when it ran (the sandbox's init is this program started again)")

// Init runs the sandbox stage this process was started as, if any, and
// returns its exit status with ran set; the caller must then exit with it
// at once. Call it first in main, before anything else runs: Start refuses
// to run in a program that has not called it.
func Init() (code int, ran bool) {
	initCalled.Store(true)
	return reexec.Init()
}

// checkExtraFiles refuses ExtraFiles that cannot be passed: a closed file,
// or any at all on Windows.
func (c *Cmd) checkExtraFiles() error {
	if len(c.ExtraFiles) > 0 && runtime.GOOS == "windows" {
		return &SetupError{Code: ExitSetup, Msg: "ExtraFiles: the Windows backend passes no descriptors but the standard streams"}
	}
	for i, f := range c.ExtraFiles {
		if f != nil && f.Fd() == ^uintptr(0) {
			return &SetupError{Code: ExitSetup, Msg: fmt.Sprintf("ExtraFiles[%d] (descriptor %d inside): %s is closed", i, 3+i, f.Name())}
		}
		if f == nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			// A directory's descriptor is a way around the mounts: paths
			// opened from it are the host's, not the sandbox's view.
			c.warnf("ExtraFiles[%d] (descriptor %d inside) is the directory %s: through it the payload opens what is under it, and above it with .., as far as Landlock and the files' modes allow, past the mounts that make paths read-only or hidden", i, 3+i, fileName(f))
		}
	}
	return nil
}

// describeExtraFiles is what the report says of ExtraFiles: each
// descriptor the payload got and what it is.
func describeExtraFiles(files []*os.File) []ExtraFileReport {
	var out []ExtraFileReport
	for i, f := range files {
		if f != nil {
			out = append(out, ExtraFileReport{FD: 3 + i, Name: fileName(f)})
		}
	}
	return out
}

// fileName is how the report names a passed descriptor: on Linux what the
// kernel says it is ("/path", "pipe:[123]", "socket:[456]"), elsewhere the
// name it was opened with.
func fileName(f *os.File) string {
	if runtime.GOOS == "linux" {
		if name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
			return name
		}
	}
	return f.Name()
}
