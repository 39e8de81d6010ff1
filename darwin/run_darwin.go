package darwin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// SandboxExec is where macOS keeps sandbox-exec; it is never looked up in
// PATH.
const SandboxExec = "/usr/bin/sandbox-exec"

// Exit statuses of a payload that never ran, as nsrun's exit codes.
const (
	exitSetup         = 125
	exitNotExecutable = 126
	exitNotFound      = 127
)

// Error is a payload that never ran: the sandbox could not be started
// (Code 125), or the command could not be (126 not executable, 127 not
// found). Op names the step, Msg (when set) is the whole message.
type Error struct {
	Code    int
	Op, Msg string
	Err     error
}

func (e *Error) Error() string {
	switch {
	case e.Msg != "":
		return e.Msg
	case e.Op == "":
		return e.Err.Error()
	}
	return e.Op + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Attr is the payload: its command line (Args[0] is looked up in PATH),
// environment, directory, streams, and the files it gets as 3, 4, ...
type Attr struct {
	Args, Env      []string
	Dir            string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ExtraFiles     []*os.File
	// WaitDelay bounds the copying of the payload's output after it ended
	// (exec.Cmd.WaitDelay).
	WaitDelay time.Duration
}

// Process is a payload running under sandbox-exec, in a process group of
// its own.
type Process struct {
	cmd *exec.Cmd
}

// Start proves that the profile works on /usr/bin/true (a profile
// sandbox-exec rejects must read as a broken sandbox, not as the command
// failing), then starts the payload under it. Its errors are *Error.
func Start(prof Profile, a *Attr) (*Process, error) {
	if _, err := os.Stat(SandboxExec); err != nil {
		return nil, &Error{Code: exitSetup, Op: "macOS sandbox unavailable", Err: err}
	}
	var probeErr bytes.Buffer
	probe := exec.Command(SandboxExec, append(prof.Args(), "/usr/bin/true")...)
	probe.Stderr = &probeErr
	if err := probe.Run(); err != nil {
		return nil, &Error{Code: exitSetup, Err: err,
			Msg: fmt.Sprintf("macOS sandbox unavailable: sandbox-exec refused the profile (%v): %s", err, strings.TrimSpace(probeErr.String()))}
	}
	path, err := exec.LookPath(a.Args[0])
	if err != nil {
		code := exitNotFound
		if errors.Is(err, os.ErrPermission) {
			code = exitNotExecutable
		}
		return nil, &Error{Code: code, Err: err}
	}
	cmd := exec.Command(SandboxExec, append(append(prof.Args(), "--", path), a.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env, cmd.Dir = a.Stdin, a.Stdout, a.Stderr, a.Env, a.Dir
	// sandbox-exec executes the payload in its place: these are its 3, 4,
	// ... as on Linux.
	cmd.ExtraFiles, cmd.WaitDelay = a.ExtraFiles, a.WaitDelay
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, &Error{Code: exitSetup, Op: "start sandbox-exec", Err: err}
	}
	return &Process{cmd: cmd}, nil
}

// Process is the payload's process (sandbox-exec's, which it replaced).
func (p *Process) Process() *os.Process { return p.cmd.Process }

// Terminate sends SIGTERM to the payload.
func (p *Process) Terminate() error { return p.cmd.Process.Signal(syscall.SIGTERM) }

// Kill kills the payload's process group.
func (p *Process) Kill() error {
	err := p.cmd.Process.Kill()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	return err
}

// End is how the payload ended, and what it used.
type End struct {
	Status       int // the exit status, or -1 when a signal killed it
	Signal       int // the signal that killed it, or 0
	User, System time.Duration
	MaxRSSKiB    int64
}

// Wait waits for the payload, then kills what is left of its process
// group. The error is the copying of its streams', if that failed.
func (p *Process) Wait() (End, error) {
	ioErr := p.cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(ioErr, &exitErr) {
		ioErr = nil
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	st := p.cmd.ProcessState
	ws, _ := st.Sys().(syscall.WaitStatus)
	e := End{Status: ws.ExitStatus(), User: st.UserTime(), System: st.SystemTime()}
	if ws.Signaled() {
		e.Signal = int(ws.Signal())
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		e.MaxRSSKiB = ru.Maxrss / 1024 // bytes on macOS
	}
	return e, ioErr
}

// Available says whether sandbox-exec is there: detail is its path, or why
// it is not.
func Available() (ok bool, detail string) {
	if _, err := os.Stat(SandboxExec); err != nil {
		return false, err.Error()
	}
	return true, SandboxExec
}
