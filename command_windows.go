package nsrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	xwin "golang.org/x/sys/windows"

	win "github.com/nsrun/nsrun/windows"
)

// sysCmd is the payload under a restricted token, and what must be undone
// after it: the ACEs (journaled), the temp dir.
type sysCmd struct {
	proc    *win.Process
	session *win.Session
	tmpDir  string
	started time.Time
	begun   chan struct{}
	done    chan struct{}
}

func (c *Cmd) backend() string { return "restricted-token" }

func (c *Cmd) stopper() stopper {
	if c.sys == nil || c.sys.proc == nil {
		return nil
	}
	return c.sys
}

// start builds the plan, undoes what crashed runs left, applies the ACEs
// (journaled first), and starts the command suspended in a job with the
// restricted token, then resumes it.
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
		s.undo()
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
	e, err := p.effect(false)
	if err != nil {
		return fail(err)
	}
	if s.tmpDir, err = os.MkdirTemp("", "nsrun-"); err != nil {
		return fail(fmt.Errorf("private temp dir: %w", err))
	}
	in := win.Input{TempDir: s.tmpDir}
	for _, r := range e.Rules {
		switch r.Access {
		case ReadWrite:
			in.Writable = append(in.Writable, r.Path)
			c.report.Filesystem.RW = append(c.report.Filesystem.RW, r.Path)
		case ReadOnly:
			in.ReadOnly = append(in.ReadOnly, r.Path)
			c.report.Filesystem.RO = append(c.report.Filesystem.RO, r.Path)
		case Deny:
			in.Denied = append(in.Denied, r.Path)
			c.report.Filesystem.Deny = append(c.report.Filesystem.Deny, r.Path)
		default:
			return fail(&RuleError{Rule: r, Err: errors.New("a fresh tmpfs needs mounts, which Windows does not have")})
		}
	}
	plan, err := win.MakePlan(in)
	if err != nil {
		return fail(&SetupError{Code: ExitSetup, Err: err})
	}
	if c.afterPrepare != nil {
		c.afterPrepare()
	}
	for _, err := range win.ReplayStale() {
		c.warnf("%v", err)
	}
	if s.session, err = win.NewSession(); err != nil {
		return fail(err)
	}
	if err := s.session.Apply(plan); err != nil {
		return fail(&SetupError{Code: ExitSetup, Op: "Windows sandbox unavailable", Err: err})
	}
	token, err := s.session.Token(plan)
	if err != nil {
		return fail(&SetupError{Code: ExitSetup, Op: "Windows sandbox unavailable", Err: err})
	}
	defer token.Close()
	path, err := exec.LookPath(c.Args[0])
	if err != nil {
		return fail(&SetupError{Code: ExitNotFound, Err: err})
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(withoutKeys(env, "TEMP", "TMP"), "TEMP="+s.tmpDir, "TMP="+s.tmpDir)
	std, err := openStd(c)
	if err != nil {
		return fail(err)
	}
	s.proc, err = win.Start(token, xwin.ComposeCommandLine(append([]string{path}, c.Args[1:]...)), env, c.Dir, std.handles())
	// The payload has its own copies now (or none was made).
	std.close()
	if err != nil {
		return fail(&SetupError{Code: ExitSetup, Op: "start the payload", Err: err})
	}
	c.report.TimingsMS.Setup = float64(time.Since(s.started).Microseconds()) / 1000
	c.describeRun(&c.report, c.Dir, -1, -1)
	c.report.Network = networkReport(p)
	c.report.Network.Mode = "host" // a restricted token does not restrict the network
	c.Process, _ = os.FindProcess(int(s.proc.Pid))
	close(s.begun)
	c.startWatch(s, s.begun, s.done)
	return nil
}

// windowsCheck refuses settings that mean nothing with a restricted token.
func (p *Policy) windowsCheck() error {
	if setting := p.linuxOnlySetting(); setting != "" {
		return &SetupError{Code: ExitSetup, Msg: setting + " has no meaning with the Windows restricted-token backend"}
	}
	return nil
}

// undo revokes the ACEs and removes the temp dir.
func (s *sysCmd) undo() {
	s.session.Undo()
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
}

func withoutKeys(env []string, keys ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, key := range keys {
			drop = drop || strings.EqualFold(k, key)
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// stdFiles are the payload's standard streams as files: the caller's as
// given, NUL (opened here, and closed by close) for nil. The files are
// kept, not only their handles, so that no finalizer closes a handle
// before the payload has its copy.
type stdFiles struct {
	files  [3]*os.File
	opened []*os.File
}

// openStd gives the payload's standard streams. Readers and writers other
// than files need pipes this backend does not make, and a closed file has
// no handle to give.
func openStd(c *Cmd) (*stdFiles, error) {
	s := &stdFiles{}
	for i, v := range []any{c.Stdin, c.Stdout, c.Stderr} {
		switch f := v.(type) {
		case nil:
			nul, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				s.close()
				return nil, &SetupError{Code: ExitSetup, Op: "open " + os.DevNull, Err: err}
			}
			s.files[i] = nul
			s.opened = append(s.opened, nul)
		case *os.File:
			if f.Fd() == uintptr(xwin.InvalidHandle) {
				s.close()
				return nil, &SetupError{Code: ExitSetup, Msg: fmt.Sprintf("standard stream %d (%s) is closed", i, f.Name())}
			}
			s.files[i] = f
		default:
			s.close()
			return nil, &SetupError{Code: ExitSetup, Msg: "the Windows backend needs *os.File standard streams (or nil)"}
		}
	}
	return s, nil
}

// handles are the files' handles; the files stay open until close.
func (s *stdFiles) handles() [3]xwin.Handle {
	var out [3]xwin.Handle
	for i, f := range s.files {
		out[i] = xwin.Handle(f.Fd())
	}
	return out
}

// close closes what openStd opened; the caller's files stay open.
func (s *stdFiles) close() {
	for _, f := range s.opened {
		f.Close()
	}
	s.opened = nil
	runtime.KeepAlive(s.files)
}

// terminate ends the job: Windows has no SIGTERM to give the payload.
func (s *sysCmd) terminate() error { return s.proc.Kill() }

// kill ends the job: the payload and everything it started.
func (s *sysCmd) kill() error { return s.proc.Kill() }

// wait waits for the payload, ends the job, revokes the ACEs.
func (c *Cmd) wait() (*ExitError, error) {
	s := c.sys
	code, err := s.proc.Wait()
	usage := &UsageReport{Source: "job"}
	if user, kernel, peak, uerr := s.proc.Usage(); uerr == nil {
		usage.UserMS, usage.SystemMS, usage.MaxRSSKiB = ms(user), ms(kernel), int64(peak/1024)
	}
	close(s.done)
	s.proc.Close()
	s.undo()
	ee := &ExitError{Code: int(code)}
	c.report.TimingsMS.Run = float64(time.Since(s.started).Microseconds())/1000 - c.report.TimingsMS.Setup
	usage.WallMS = c.report.TimingsMS.Run
	c.report.Usage = usage
	return ee, err
}

// Signal ends the payload: Windows has no signals to pass on.
func (c *Cmd) Signal(sig os.Signal) error {
	if !c.running {
		return errors.New("nsrun: Signal before Start")
	}
	return c.sys.proc.Kill()
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
