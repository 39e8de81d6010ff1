package windows

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"golang.org/x/sys/windows"
)

// Exit statuses of a payload that never ran, as nsrun's exit codes.
const (
	exitSetup    = 125
	exitNotFound = 127
)

// Error is a payload that never ran: the sandbox could not be built (Code
// 125), or the command was not found (127). Op names the step, Msg (when
// set) is the whole message.
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
// environment (TEMP and TMP become the sandbox's temp directory),
// directory and standard streams (nil for NUL, else an *os.File: this
// backend makes no pipes).
type Attr struct {
	Args, Env      []string
	Dir            string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Planned, if set, runs once the plan is made, before anything is
	// applied.
	Planned func()
	// Warn is told what runs that died left behind and this one could not
	// undo.
	Warn func(error)
}

// Sandbox is a payload running under a restricted token, and what must be
// undone after it: the ACEs (journaled) and the temp directory.
type Sandbox struct {
	proc    *Process
	session *Session
	tmpDir  string
}

// Launch makes the sandbox's temp directory, plans in with it, undoes
// what crashed runs left, applies the ACEs (journaled first), and starts
// the payload suspended in a job with the restricted token, then resumes
// it. On failure everything is undone; the errors of a payload that never
// ran are *Error.
func Launch(in Input, a *Attr) (*Sandbox, error) {
	s := &Sandbox{}
	fail := func(err error) (*Sandbox, error) {
		s.undo()
		return nil, err
	}
	var err error
	if s.tmpDir, err = os.MkdirTemp("", "nsrun-"); err != nil {
		return fail(fmt.Errorf("private temp dir: %w", err))
	}
	in.TempDir = s.tmpDir
	plan, err := MakePlan(in)
	if err != nil {
		return fail(&Error{Code: exitSetup, Err: err})
	}
	if a.Planned != nil {
		a.Planned()
	}
	for _, err := range ReplayStale() {
		if a.Warn != nil {
			a.Warn(err)
		}
	}
	if s.session, err = NewSession(); err != nil {
		return fail(err)
	}
	if err := s.session.Apply(plan); err != nil {
		return fail(&Error{Code: exitSetup, Op: "Windows sandbox unavailable", Err: err})
	}
	token, err := s.session.Token(plan)
	if err != nil {
		return fail(&Error{Code: exitSetup, Op: "Windows sandbox unavailable", Err: err})
	}
	defer token.Close()
	path, err := exec.LookPath(a.Args[0])
	if err != nil {
		return fail(&Error{Code: exitNotFound, Err: err})
	}
	std, err := openStd(a)
	if err != nil {
		return fail(err)
	}
	s.proc, err = Start(token, windows.ComposeCommandLine(append([]string{path}, a.Args[1:]...)), WithTemp(a.Env, s.tmpDir), a.Dir, std.handles())
	// The payload has its own copies now (or none was made).
	std.close()
	if err != nil {
		return fail(&Error{Code: exitSetup, Op: "start the payload", Err: err})
	}
	return s, nil
}

// Pid is the payload's process id.
func (s *Sandbox) Pid() int { return int(s.proc.Pid) }

// Kill ends the job: the payload and everything it started. Windows has
// no SIGTERM to give the payload first.
func (s *Sandbox) Kill() error { return s.proc.Kill() }

// End is how the payload ended, and what the job used (UsageErr: it could
// not be read).
type End struct {
	Code         int
	User, Kernel time.Duration
	PeakBytes    uint64
	UsageErr     error
}

// Wait waits for the payload and reads what the job used. Close comes
// after it, once nothing may Kill any more.
func (s *Sandbox) Wait() (End, error) {
	code, err := s.proc.Wait()
	var e End
	e.User, e.Kernel, e.PeakBytes, e.UsageErr = s.proc.Usage()
	e.Code = int(code)
	return e, err
}

// Close ends the job (and what is left in it), revokes the ACEs and
// removes the temp directory.
func (s *Sandbox) Close() {
	s.proc.Close()
	s.undo()
}

// undo revokes the ACEs and removes the temp dir.
func (s *Sandbox) undo() {
	s.session.Undo()
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
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
func openStd(a *Attr) (*stdFiles, error) {
	s := &stdFiles{}
	for i, v := range []any{a.Stdin, a.Stdout, a.Stderr} {
		switch f := v.(type) {
		case nil:
			nul, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				s.close()
				return nil, &Error{Code: exitSetup, Op: "open " + os.DevNull, Err: err}
			}
			s.files[i] = nul
			s.opened = append(s.opened, nul)
		case *os.File:
			if f.Fd() == uintptr(windows.InvalidHandle) {
				s.close()
				return nil, &Error{Code: exitSetup, Msg: fmt.Sprintf("standard stream %d (%s) is closed", i, f.Name())}
			}
			s.files[i] = f
		default:
			s.close()
			return nil, &Error{Code: exitSetup, Msg: "the Windows backend needs *os.File standard streams (or nil)"}
		}
	}
	return s, nil
}

// handles are the files' handles; the files stay open until close.
func (s *stdFiles) handles() [3]windows.Handle {
	var out [3]windows.Handle
	for i, f := range s.files {
		out[i] = windows.Handle(f.Fd())
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
