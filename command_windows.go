package nsrun

import (
	"errors"
	"os"
	"time"

	win "github.com/nsrun/nsrun/windows"
)

// sysCmd is the payload under a restricted token (package windows runs it;
// this file lowers the Cmd into its input and raises its results).
type sysCmd struct {
	sb      *win.Sandbox
	started time.Time
	begun   chan struct{}
	done    chan struct{}
}

func (c *Cmd) backend() string { return "restricted-token" }

func (c *Cmd) stopper() stopper {
	if c.sys == nil || c.sys.sb == nil {
		return nil
	}
	return c.sys
}

// start checks the policy, lowers its rules into the backend's input and
// starts the command in the sandbox package windows builds from it.
func (c *Cmd) start() error {
	s := &sysCmd{started: time.Now(), begun: make(chan struct{}), done: make(chan struct{})}
	c.sys = s
	p := c.policy()
	c.report = Report{Version: 1, Backend: "restricted-token", Enforcement: "partial",
		Filesystem:  FilesystemReport{Root: "/", RW: []string{}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}},
		Landlock:    LandlockReport{Status: "none", Dropped: []string{}, Reason: "Windows has no Landlock"},
		Seccomp:     SeccompReport{Status: "none", Reason: "Windows has no seccomp"},
		NotEnforced: win.NotEnforced}
	fail := func(err error) error {
		c.report.notBuilt("restricted-token", err)
		return err
	}
	if len(c.Args) == 0 || c.Args[0] == "" {
		return fail(&SetupError{Code: ExitSetup, Msg: "no command given"})
	}
	if err := p.windowsCheck(); err != nil {
		return fail(err)
	}
	if err := ttyCheck(c.TTY); err != nil {
		return fail(err)
	}
	in, err := c.windowsInput(p)
	if err != nil {
		return fail(err)
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	s.sb, err = win.Launch(in, &win.Attr{Args: c.Args, Env: env, Dir: c.Dir, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Planned: c.afterPrepare, Warn: func(err error) { c.warnf("%v", err) }})
	if err != nil {
		var we *win.Error
		if errors.As(err, &we) {
			err = &SetupError{Code: we.Code, Op: we.Op, Msg: we.Msg, Err: we.Err}
		}
		return fail(err)
	}
	c.report.TimingsMS.Setup = ms(time.Since(s.started))
	c.describeRun(&c.report, c.Dir, -1, -1)
	c.report.Network = networkReport(p)
	c.report.Network.Mode = "host" // a restricted token does not restrict the network
	c.Process, _ = os.FindProcess(s.sb.Pid())
	close(s.begun)
	c.startWatch(s, s.begun, s.done)
	return nil
}

// windowsInput lowers p's effective rules into the backend's input, and
// reports them.
func (c *Cmd) windowsInput(p *Policy) (win.Input, error) {
	var in win.Input
	e, err := p.effect(false)
	if err != nil {
		return in, err
	}
	fs := &c.report.Filesystem
	for _, r := range e.Rules {
		switch r.Access {
		case ReadWrite:
			in.Writable, fs.RW = append(in.Writable, r.Path), append(fs.RW, r.Path)
		case ReadOnly:
			in.ReadOnly, fs.RO = append(in.ReadOnly, r.Path), append(fs.RO, r.Path)
		case Deny:
			in.Denied, fs.Deny = append(in.Denied, r.Path), append(fs.Deny, r.Path)
		default:
			return in, &RuleError{Rule: r, Err: errors.New("a fresh tmpfs needs mounts, which Windows does not have")}
		}
	}
	return in, nil
}

// windowsCheck refuses settings that mean nothing with a restricted token.
func (p *Policy) windowsCheck() error { return p.linuxOnly("the Windows restricted-token backend") }

// Terminate ends the job: Windows has no SIGTERM to give the payload.
func (s *sysCmd) Terminate() error { return s.sb.Kill() }

// Kill ends the job: the payload and everything it started.
func (s *sysCmd) Kill() error { return s.sb.Kill() }

// wait waits for the payload, ends the job, revokes the ACEs.
func (c *Cmd) wait() (*ExitError, error) {
	s := c.sys
	end, err := s.sb.Wait()
	close(s.done)
	s.sb.Close()
	c.report.TimingsMS.Run = ms(time.Since(s.started)) - c.report.TimingsMS.Setup
	usage := &UsageReport{Source: "job", WallMS: c.report.TimingsMS.Run}
	if end.UsageErr == nil {
		usage.UserMS, usage.SystemMS, usage.MaxRSSKiB = ms(end.User), ms(end.Kernel), int64(end.PeakBytes/1024)
	}
	c.report.Usage = usage
	return &ExitError{Code: end.Code}, err
}

// Signal ends the payload: Windows has no signals to pass on.
func (c *Cmd) Signal(sig os.Signal) error {
	if !c.running {
		return errors.New("nsrun: Signal before Start")
	}
	return c.sys.sb.Kill()
}

// ProbeHost says whether the Windows backend can run for the calling user
// (it makes and discards a restricted token and a job object), and what
// it enforces.
func ProbeHost() Probe {
	no := ProbeItem{Detail: "not on Linux"}
	p := Probe{UserNamespaces: no, Procfs: no, Sysfs: no, MountSetattr: no, Landlock: no, Seccomp: no, CgroupV2: no, Limits: no,
		Seatbelt: ProbeItem{Detail: "not on macOS"}, LandlockOnly: ProbeLandlockOnly{Detail: no.Detail}}
	p.RestrictedToken = restrictedTokenProbe(win.CheckHost())
	return p
}

// restrictedTokenProbe is the backend's verdict on checks, with what it
// enforces and leaves open when it can run.
func restrictedTokenProbe(checks []win.Check) ProbeRestrictedToken {
	ok, detail := win.Verdict(checks)
	out := ProbeRestrictedToken{OK: ok, Detail: detail}
	if ok {
		out.Enforced, out.NotEnforced = win.Enforced, win.NotEnforced
	}
	return out
}

// Resize sets the size of the payload's pseudo-terminal; there is none on
// this system.
func (c *Cmd) Resize(WindowSize) error { return errPTYNeedsLinux }
