package nsrun

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Cmd is a command to run in a sandbox, used like exec.Cmd: set the
// fields, then Run, or Start and Wait. A Cmd cannot be reused.
type Cmd struct {
	// Policy is the sandbox; nil means the zero Policy.
	Policy *Policy
	// Args is the command and its arguments; Args[0] is looked up in the
	// PATH of Env, inside the sandbox.
	Args []string
	// Env is the payload's environment; nil means the caller's. A TMPDIR
	// that is not writable inside is replaced by /tmp. With a filtered
	// network the proxy variables point at nsrun's proxy, except those Env
	// sets (the caller's own, when Env is nil, are replaced).
	Env []string
	// Dir is the working directory inside. Empty means the current
	// directory if it is visible inside, else the first writable directory
	// rule, else "/".
	Dir string
	// Stdin, Stdout and Stderr are as in exec.Cmd; nil means /dev/null.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TTY says whether the payload gets a pseudo-terminal of its own,
	// relayed to the terminal among Stdin, Stdout and Stderr (Linux); see
	// TTYMode. A terminal given as one of them may be any terminal the
	// caller holds, a pty slave of its own included; Signal(SIGWINCH) then
	// copies its size to the payload's pty.
	TTY TTYMode
	// WindowSize, if not zero, is the size of the payload's pty at start
	// instead of the caller's terminal's; Resize changes it later.
	WindowSize WindowSize
	// Timeout, if positive, ends the whole sandbox after that long.
	Timeout time.Duration
	// Log, if set, receives one line per setup step.
	Log io.Writer
	// Warnings, if set, receives one line per thing the caller may not
	// expect: a rule path that resolved through a symlink, a TMPDIR
	// replaced by /tmp.
	Warnings io.Writer

	ctx    context.Context
	report Report
	sys    *sysCmd
	// afterPrepare runs between checking the paths and building the
	// sandbox; tests use it to change the filesystem in that window.
	afterPrepare func()
}

// Command returns a Cmd that runs name with args under p.
func Command(p *Policy, name string, args ...string) *Cmd {
	return CommandContext(context.Background(), p, name, args...)
}

// CommandContext is Command with a context whose end kills the sandbox.
func CommandContext(ctx context.Context, p *Policy, name string, args ...string) *Cmd {
	return &Cmd{Policy: p, Args: append([]string{name}, args...), ctx: ctx}
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

func (c *Cmd) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "nsrun: "+format+"\n", a...)
	}
}

func (c *Cmd) warnf(format string, a ...any) {
	if c.Warnings != nil {
		fmt.Fprintf(c.Warnings, "nsrun: warning: "+format+"\n", a...)
	}
}

// deadlineReached waits until the command's timeout expires or its context
// ends, and says so; it returns false as soon as done is closed instead.
// Each backend's watcher ends the sandbox in its own way when it is true.
func (c *Cmd) deadlineReached(done <-chan struct{}) bool {
	var timer <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timer = t.C
	}
	var ctxDone <-chan struct{}
	if c.ctx != nil {
		ctxDone = c.ctx.Done()
	}
	select {
	case <-done:
		return false
	case <-timer:
	case <-ctxDone:
	}
	return true
}

// policy is the Cmd's policy, or the default one when none is set.
func (c *Cmd) policy() *Policy {
	if c.Policy == nil {
		return &Policy{}
	}
	return c.Policy
}
