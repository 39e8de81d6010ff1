package nsrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nsrun/nsrun/internal/environ"
)

// sandboxExec is where macOS keeps it; it is never looked up in PATH.
const sandboxExec = "/usr/bin/sandbox-exec"

// sysCmd is the sandbox-exec process running the payload.
type sysCmd struct {
	cmd     *exec.Cmd
	started time.Time
	begun   chan struct{}
	done    chan struct{}
}

func (c *Cmd) backend() string { return "seatbelt" }

func (c *Cmd) stopper() stopper {
	if c.sys == nil || c.sys.cmd == nil || c.sys.cmd.Process == nil {
		return nil
	}
	return c.sys
}

// start checks the policy, proves the profile works on /usr/bin/true (a
// profile sandbox-exec rejects must read as a broken sandbox, not as the
// command failing), and starts the command under it.
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
	if _, err := os.Stat(sandboxExec); err != nil {
		return fail(&SetupError{Code: ExitSetup, Op: "macOS sandbox unavailable", Err: err})
	}
	var probeErr bytes.Buffer
	probe := exec.Command(sandboxExec, append(prof.Args(), "/usr/bin/true")...)
	probe.Stderr = &probeErr
	if err := probe.Run(); err != nil {
		return fail(&SetupError{Code: ExitSetup, Msg: fmt.Sprintf("macOS sandbox unavailable: sandbox-exec refused the profile (%v): %s", err, strings.TrimSpace(probeErr.String()))})
	}
	path, err := exec.LookPath(c.Args[0])
	if err != nil {
		code := ExitNotFound
		if errors.Is(err, os.ErrPermission) {
			code = ExitNotExecutable
		}
		return fail(&SetupError{Code: code, Err: err})
	}
	s.cmd = exec.Command(sandboxExec, append(append(prof.Args(), "--", path), c.Args[1:]...)...)
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
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr, s.cmd.Env, s.cmd.Dir = c.Stdin, c.Stdout, c.Stderr, env, c.Dir
	// sandbox-exec executes the payload in its place: these are its 3, 4,
	// ... as on Linux, and exec.Cmd's WaitDelay bounds the copying of its
	// output after it ended.
	s.cmd.ExtraFiles, s.cmd.WaitDelay = c.ExtraFiles, c.WaitDelay
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return fail(&SetupError{Code: ExitSetup, Op: "start sandbox-exec", Err: err})
	}
	c.describeRun(&c.report, dir, os.Getuid(), os.Getgid())
	c.report.Network = networkReport(p)
	c.report.TimingsMS.Setup = float64(time.Since(s.started).Microseconds()) / 1000
	c.Process = s.cmd.Process
	close(s.begun)
	c.startWatch(s, s.begun, s.done)
	return nil
}

// terminate sends SIGTERM to the payload.
func (s *sysCmd) terminate() error { return s.cmd.Process.Signal(syscall.SIGTERM) }

// kill kills the payload's process group.
func (s *sysCmd) kill() error {
	err := s.cmd.Process.Kill()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	return err
}

// wait waits for the payload and maps its end as on Linux.
func (c *Cmd) wait() (*ExitError, error) {
	s := c.sys
	ioErr := s.cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(ioErr, &exitErr) {
		ioErr = nil
	}
	close(s.done)
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	ws, _ := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
	ee := &ExitError{Code: ws.ExitStatus()}
	if ws.Signaled() {
		ee.Signal = int(ws.Signal())
		ee.Code = 128 + ee.Signal
	}
	u := &UsageReport{UserMS: ms(s.cmd.ProcessState.UserTime()), SystemMS: ms(s.cmd.ProcessState.SystemTime()),
		WallMS: float64(time.Since(s.started).Microseconds())/1000 - c.report.TimingsMS.Setup, Source: "rusage"}
	if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.MaxRSSKiB = ru.Maxrss / 1024 // bytes on macOS
	}
	c.report.Usage = u
	c.report.TimingsMS.Run = u.WallMS
	return ee, ioErr
}

// Signal passes sig to the payload.
func (c *Cmd) Signal(sig os.Signal) error {
	if !c.running {
		return errors.New("nsrun: Signal before Start")
	}
	return c.sys.cmd.Process.Signal(sig)
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
	if _, err := os.Stat(sandboxExec); err != nil {
		p.Seatbelt = ProbeItem{Detail: err.Error()}
	} else {
		p.Seatbelt = ProbeItem{OK: true, Detail: sandboxExec}
	}
	return p
}

// Resize sets the size of the payload's pseudo-terminal; there is none on
// this system.
func (c *Cmd) Resize(WindowSize) error { return errPTYNeedsLinux }
