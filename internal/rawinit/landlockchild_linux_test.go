package rawinit

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/seccomp"
)

func landlockChildSpec() *launch.Spec {
	allow := seccomp.Program{{Code: 0x06, K: 0x7fff0000}} // RET ALLOW
	return &launch.Spec{
		Args: []string{"tool", "x"}, Env: []string{"PATH=/a:/b"}, Dir: "/w",
		Rlimits:    []launch.Rlimit{{Name: "nofile", Soft: 10, Hard: 20}},
		Landlock:   &landlock.Ruleset{Handled: landlock.Request{FS: landlock.WriteFile}, Paths: []landlock.PathRule{{Path: "/w", Access: landlock.WriteFile, Dir: true}}},
		Supervisor: &launch.SupervisorSpec{Filter: allow},
		Seccomp:    []seccomp.Program{allow},
		ExtraFiles: []int{9, -1, 7},
	}
}

// The raw child refuses what it cannot do, by name, for the Go child.
func TestSupportsLandlockChild(t *testing.T) {
	for name, change := range map[string]func(*launch.Spec){
		"a pseudo-terminal": func(s *launch.Spec) { s.TTY = &launch.TTYSpec{} },
		"a spec without a Landlock ruleset and supervisor": func(s *launch.Spec) { s.Supervisor = nil },
		"a supervisor without a filter":                    func(s *launch.Spec) { s.Supervisor.Filter = nil },
		"an empty command":                                 func(s *launch.Spec) { s.Args = nil },
		"rlimit bogus":                                     func(s *launch.Spec) { s.Rlimits = []launch.Rlimit{{Name: "bogus"}} },
	} {
		spec := landlockChildSpec()
		change(spec)
		err := SupportsLandlockChild(spec)
		if !errors.Is(err, ErrUnsupported) || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := SupportsLandlockChild(landlockChildSpec()); err != nil {
		t.Error(err)
	}
}

// The child does what the Go child does, in its order: descriptors taken,
// limits, Landlock, capabilities, the notifying filter then the
// profile's, the listener sent and closed, chdir, the ExtraFiles kept
// across the exec, the search.
func TestLandlockChildOrder(t *testing.T) {
	cp, err := CompileLandlockChild(ChildInput{Spec: landlockChildSpec(), Conn: 12, StagePid: 42, CapLast: 40})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, op := range cp.Ops {
		if op.Code == opSys {
			name := map[uintptr]string{unix.SYS_SETPGID: "setpgid", unix.SYS_GETPPID: "getppid", unix.SYS_SENDMSG: "sendmsg", unix.SYS_FCNTL: "fcntl"}[op.Nr]
			if name == "" {
				name = sysName(op.Nr)
			}
			calls = append(calls, name)
		}
	}
	got := strings.Join(calls, " ")
	want := []string{"setpgid", "prctl", "getppid", "dup3", "close_range", "prlimit64", "landlock_create_ruleset",
		"landlock_restrict_self", "capset", "seccomp", "seccomp", "sendmsg", "close", "seccomp", "seccomp", "sendmsg", "close",
		"chdir", "fcntl", "fcntl"}
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("no %s in order in:\n%s", w, got)
		}
		rest = rest[i+len(w):]
	}
	if strings.Contains(rest, "prlimit64") {
		t.Errorf("a nofile restore although the spec sets nofile: %s", got)
	}
	// Without a nofile of the spec's, the one Go raised is restored last.
	spec := landlockChildSpec()
	spec.Rlimits = nil
	cp2, err := CompileLandlockChild(ChildInput{Spec: spec, Conn: 12, StagePid: 42, CapLast: 40, Nofile: &[2]uint64{1024, 4096}})
	if err != nil {
		t.Fatal(err)
	}
	if s := cp2.String(); !strings.Contains(s, sysName(unix.SYS_FCNTL)+" 0x5 0x2\n") || !strings.Contains(s[strings.LastIndex(s, "0x5 0x2"):], "prlimit64 0x0 0x7 nofile") {
		t.Errorf("no nofile restore after the ExtraFiles:\n%s", s)
	}
	// The ExtraFiles land at 3 and 5 (descriptor 4 a nil one).
	placed := cp.String()
	for _, s := range []string{"sys dup3 0x9 0xd 0x80000", "sys dup3 0x7 0xf 0x80000", "sys dup3 0xd 0x3 0x80000", "sys dup3 0xf 0x5 0x80000",
		sysName(unix.SYS_FCNTL) + " 0x3 0x2", sysName(unix.SYS_FCNTL) + " 0x5 0x2", sysName(unix.SYS_SENDMSG) + " 0xc"} {
		if !strings.Contains(placed, s) {
			t.Errorf("no %q in:\n%s", s, placed)
		}
	}
}

// Each failure is worded as the Go child words it, with its exit code.
func TestLandlockChildFailures(t *testing.T) {
	spec := landlockChildSpec()
	cp, err := CompileLandlockChild(ChildInput{Spec: spec, Conn: 12, StagePid: 42, CapLast: 40})
	if err != nil {
		t.Fatal(err)
	}
	step := func(name string) uint32 {
		for i, s := range cp.Steps {
			if s == name {
				return uint32(i)
			}
		}
		t.Fatalf("no step %q in %q", name, cp.Steps)
		return 0
	}
	var lim unix.Rlimit
	_ = unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	for _, c := range []struct {
		step  string
		errno syscall.Errno
		code  int
		msg   string
	}{
		{"rlimit nofile=10:20", syscall.EPERM, launch.ExitSetup, "rlimit nofile=10:20: cannot raise the hard limit above " + strconv.FormatUint(lim.Max, 10) + ": operation not permitted"},
		{"rlimit nofile=10:20", syscall.EINVAL, launch.ExitSetup, "rlimit nofile: invalid argument"},
		{"landlock rule on /w", syscall.ELOOP, launch.ExitSetup, "landlock rule on /w: the path changed during start-up (a symlink is now on the way); nothing ran"},
		{"landlock rule on /w", syscall.ESTALE, launch.ExitSetup, "landlock rule on /w: the path changed during start-up (it is another file now); nothing ran"},
		{"landlock rule on /w", syscall.EACCES, launch.ExitSetup, "landlock rule on /w: open: permission denied"},
		{"landlock_restrict_self", syscall.EPERM, launch.ExitSetup, "landlock_restrict_self: operation not permitted"},
		{"seccomp SECCOMP_SET_MODE_FILTER", syscall.EINVAL, launch.ExitSetup, "seccomp SECCOMP_SET_MODE_FILTER: invalid argument"},
		{"chdir /w inside the sandbox", syscall.ENOENT, launch.ExitSetup, "chdir /w inside the sandbox: no such file or directory"},
		{"/a/tool", syscall.EACCES, launch.ExitNotExecutable, "/a/tool: permission denied"},
		{"search PATH for tool", syscall.ENOENT, launch.ExitNotFound, "tool: command not found in PATH /a:/b"},
	} {
		code, msg, _, exec := cp.Failure(spec.Args, uint32(c.errno), step(c.step))
		if exec || code != c.code || msg != c.msg {
			t.Errorf("%s %v: %d %q (exec %v), want %d %q", c.step, c.errno, code, msg, exec, c.code, c.msg)
		}
	}
	// A refused execve: the stage explains it by the path executed.
	for i, s := range cp.Steps {
		if s == "/b/tool" {
			_, _, path, exec := cp.Failure(spec.Args, uint32(syscall.EACCES), uint32(i-1))
			if !exec || path != "/b/tool" {
				t.Errorf("execve of /b/tool: %q %v", path, exec)
			}
		}
	}
}
