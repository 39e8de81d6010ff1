package nsrun

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/nsrun/nsrun/darwin"
	"github.com/nsrun/nsrun/internal/environ"
)

// sysCmd is the payload running under sandbox-exec (package darwin runs
// it; this file lowers the Cmd into its input and raises its results).
type sysCmd struct {
	proc    *darwin.Process
	started time.Time
	begun   chan struct{}
	done    chan struct{}
}

func (c *Cmd) backend() string { return "seatbelt" }

func (c *Cmd) stopper() stopper {
	if c.sys == nil || c.sys.proc == nil {
		return nil
	}
	return c.sys
}

// start checks the policy, makes its Seatbelt profile, and starts the
// command under it.
func (c *Cmd) start() error {
	s := &sysCmd{started: time.Now(), begun: make(chan struct{}), done: make(chan struct{})}
	c.sys = s
	p := c.policy()
	c.report = seatbeltReport(p)
	fail := func(err error) error {
		c.report.notBuilt("seatbelt", err)
		return err
	}
	if len(c.Args) == 0 || c.Args[0] == "" {
		return fail(&SetupError{Code: ExitSetup, Msg: "no command given"})
	}
	if err := ttyCheck(c.TTY); err != nil {
		return fail(err)
	}
	prof, err := p.SeatbeltProfile()
	if err != nil {
		return fail(err)
	}
	if c.afterPrepare != nil {
		c.afterPrepare()
	}
	dir := c.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	if dir != "" {
		// PWD names the payload's working directory, over any the
		// caller's environment has, as on Linux: programs (a shell, make)
		// trust it as the name of their own.
		env = environ.Set(env, "PWD", dir)
	}
	s.proc, err = darwin.Start(prof, &darwin.Attr{Args: c.Args, Env: env, Dir: c.Dir,
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, ExtraFiles: c.ExtraFiles, WaitDelay: c.WaitDelay})
	if err != nil {
		var de *darwin.Error
		if errors.As(err, &de) {
			err = &SetupError{Code: de.Code, Op: de.Op, Msg: de.Msg, Err: de.Err}
		}
		return fail(err)
	}
	c.describeRun(&c.report, dir, os.Getuid(), os.Getgid())
	c.report.Network = networkReport(p)
	c.report.TimingsMS.Setup = ms(time.Since(s.started))
	c.Process = s.proc.Process()
	close(s.begun)
	c.startWatch(s, s.begun, s.done)
	return nil
}

func (s *sysCmd) Terminate() error { return s.proc.Terminate() }

func (s *sysCmd) Kill() error { return s.proc.Kill() }

// wait waits for the payload and maps its end as on Linux.
func (c *Cmd) wait() (*ExitError, error) {
	s := c.sys
	end, ioErr := s.proc.Wait()
	close(s.done)
	ee := &ExitError{Code: end.Status}
	if end.Signal != 0 {
		ee.Signal, ee.Code = end.Signal, 128+end.Signal
	}
	c.report.TimingsMS.Run = ms(time.Since(s.started)) - c.report.TimingsMS.Setup
	c.report.Usage = &UsageReport{UserMS: ms(end.User), SystemMS: ms(end.System), MaxRSSKiB: end.MaxRSSKiB,
		WallMS: c.report.TimingsMS.Run, Source: "rusage"}
	return ee, ioErr
}

// Signal passes sig to the payload.
func (c *Cmd) Signal(sig os.Signal) error {
	if !c.running {
		return errors.New("nsrun: Signal before Start")
	}
	return c.sys.proc.Process().Signal(sig)
}

// seatbeltReport is what the macOS backend enforces, and what it cannot.
func seatbeltReport(p *Policy) Report {
	return Report{
		Version: 1, Backend: "seatbelt", Enforcement: "partial",
		Filesystem:  FilesystemReport{Root: "/", RW: []string{}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}},
		Landlock:    LandlockReport{Status: "none", Dropped: []string{}, Reason: "macOS has no Landlock; Seatbelt enforces the file rules"},
		Seccomp:     SeccompReport{Status: "none", Reason: "macOS has no seccomp"},
		Namespaces:  NamespaceReport{Net: p.Net == NetNone},
		NotEnforced: []string{"PID isolation: processes outside stay visible", "IPC isolation", "a private /tmp (the real temp directories are writable)", "seccomp", "resource limits"},
	}
}

// ProbeHost says whether the macOS backend can run: sandbox-exec present.
func ProbeHost() Probe {
	no := ProbeItem{Detail: "not on macOS"}
	p := Probe{UserNamespaces: no, MountSetattr: no, Landlock: no, Seccomp: no, CgroupV2: no,
		LandlockOnly: ProbeLandlockOnly{Detail: no.Detail}, RestrictedToken: ProbeRestrictedToken{Detail: "not on Windows"}}
	ok, detail := darwin.Available()
	p.Seatbelt = ProbeItem{OK: ok, Detail: detail}
	return p
}

// Resize sets the size of the payload's pseudo-terminal; there is none on
// this system.
func (c *Cmd) Resize(WindowSize) error { return errPTYNeedsLinux }
