package nsrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/rawinit"
	"github.com/nsrun/nsrun/internal/sandbox"
)

func TestMain(m *testing.M) {
	// The sandbox's init is this test binary started again; started with
	// NSRUN_TEST_NO_INIT=1 it is a program that forgot Init.
	if os.Getenv("NSRUN_TEST_NO_INIT") != "1" {
		if code, ran := Init(); ran {
			os.Exit(code)
		}
	}
	os.Exit(m.Run())
}

func needSandbox(t *testing.T) {
	t.Helper()
	if p := ProbeHost(); !p.UserNamespaces.OK {
		if os.Getenv("NSRUN_INTEGRATION") == "1" {
			t.Fatal(p.UserNamespaces.Detail)
		}
		t.Skip(p.UserNamespaces.Detail)
	}
}

func TestLibraryPipesAndReport(t *testing.T) {
	needSandbox(t)
	var out bytes.Buffer
	cmd := Command(nil, "/bin/sh", "-c", "cat; echo err >&2; exit 3")
	cmd.Stdin = strings.NewReader("from stdin\n")
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || ExitCode(err) != 3 {
		t.Fatalf("got %v", err)
	}
	if out.String() != "from stdin\nerr\n" {
		t.Errorf("output %q", out.String())
	}
	r := cmd.Report()
	if r.Exit.Code != 3 || r.Exit.Signal != nil || r.Enforcement != "full" || r.Seccomp.Status != "full" || !r.Namespaces.Net || r.TimingsMS.Setup <= 0 {
		t.Errorf("report %+v", r)
	}
	if err := cmd.Start(); err == nil {
		t.Error("a Cmd must not start twice")
	}
}

func TestLibraryContextKillsTheSandbox(t *testing.T) {
	needSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := CommandContext(ctx, nil, "/bin/sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	time.AfterFunc(100*time.Millisecond, cancel)
	err := cmd.Wait()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.TimedOut || ee.Code != 137 || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if r := cmd.Report(); !r.Exit.Cancelled || r.Exit.TimedOut || r.Exit.Code != 137 {
		t.Errorf("report exit %+v", r.Exit)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

func TestLibrarySetupErrors(t *testing.T) {
	needSandbox(t)
	err := Command(&Policy{Rules: []Rule{{Path: "/no/such/path", Access: ReadOnly}}}, "/bin/true").Run()
	var re *RuleError
	if !errors.As(err, &re) || re.Rule.Path != "/no/such/path" || ExitCode(err) != ExitSetup {
		t.Errorf("missing path: %v", err)
	}
	err = Command(nil, "no-such-command-nsrun").Run()
	var se *SetupError
	if !errors.As(err, &se) || se.Code != ExitNotFound {
		t.Errorf("missing command: %v", err)
	}
	if err := (&Cmd{}).Wait(); err == nil {
		t.Error("Wait without Start must fail")
	}
}

// Input that cannot start (an id that cannot be mapped, no command) is
// refused as the options are read, the policy's errors before the id, and
// without anything made on the host first (a persistent home here).
func TestLibraryBadInputTouchesNothing(t *testing.T) {
	bad := -1
	home := filepath.Join(t.TempDir(), "home")
	for _, tc := range []struct {
		name string
		p    *Policy
		args []string
		want func(error) bool
	}{
		{"a bad path before a bad uid", &Policy{UID: &bad, Rules: []Rule{{Path: "/no/such/path", Access: ReadOnly}}}, nil,
			func(err error) bool { var re *RuleError; return errors.As(err, &re) && re.Rule.Path == "/no/such/path" }},
		{"a bad uid", &Policy{UID: &bad}, nil,
			func(err error) bool { var ie *IDError; return errors.As(err, &ie) && ie.Kind == "uid" }},
		{"a bad gid", &Policy{GID: &bad}, nil,
			func(err error) bool { var ie *IDError; return errors.As(err, &ie) && ie.Kind == "gid" }},
		{"a bad root before a bad uid", &Policy{UID: &bad, Root: "/no/such/root"}, nil,
			func(err error) bool { var re *RuleError; return errors.As(err, &re) && re.Rule.Path == "/no/such/root" }},
		{"a bad uid with a persistent home", &Policy{UID: &bad, Home: HomePersistent, HomeDir: home}, nil,
			func(err error) bool { var ie *IDError; return errors.As(err, &ie) }},
		{"Landlock only refuses the uid", &Policy{UID: &bad, Isolation: IsolationLandlock}, nil,
			func(err error) bool { var ie *IsolationError; return errors.As(err, &ie) && ie.Setting == "uid" }},
		{"Landlock only, the root first", &Policy{UID: &bad, Root: "/", Isolation: IsolationLandlock}, nil,
			func(err error) bool { var ie *IsolationError; return errors.As(err, &ie) && ie.Setting == "root" }},
		{"no command", &Policy{Home: HomePersistent, HomeDir: home}, []string{},
			func(err error) bool { return err != nil && err.Error() == "no command given" }},
		{"an empty command", &Policy{}, []string{""},
			func(err error) bool { return err != nil && err.Error() == "no command given" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := Command(tc.p, "/bin/true")
			if tc.args != nil {
				cmd.Args = tc.args
			}
			err := cmd.Start()
			if !tc.want(err) || ExitCode(err) != ExitSetup {
				t.Errorf("got %T %v", err, err)
			}
			if cmd.Process != nil {
				t.Errorf("a process started: %d", cmd.Process.Pid)
			}
			if _, err := os.Lstat(home); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the persistent home was made: %v", err)
			}
		})
	}
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// 200 sandboxes at once from one program: all succeed, and no descriptor
// or goroutine is left behind.
func TestLibraryConcurrentLaunchesLeakNothing(t *testing.T) {
	needSandbox(t)
	fds, goroutines := countFDs(t), runtime.NumGoroutine()
	var wg sync.WaitGroup
	const n = 200
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			cmd := Command(nil, "/bin/echo", "hi")
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil || out.String() != "hi\n" {
				errs <- errors.Join(err, errors.New("output "+out.String()))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Goroutines of finished commands may take a moment to return.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := countFDs(t); n > fds {
		t.Errorf("%d descriptors open after, %d before", n, fds)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines after, %d before", n, goroutines)
	}
}

// A path swapped for a symlink between the check and the mount is refused:
// the init opens sources without following symlinks and checks the inode.
func TestSourceSwappedBeforeTheMountIsRefused(t *testing.T) {
	needSandbox(t)
	base := t.TempDir()
	ro := filepath.Join(base, "data")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, swap := range []struct {
		name string
		do   func() error
	}{
		{"symlink", func() error {
			if err := os.Rename(ro, ro+".orig"); err != nil {
				return err
			}
			return os.Symlink("/etc", ro)
		}},
		{"another directory", func() error {
			if err := os.Rename(ro, ro+".orig"); err != nil {
				return err
			}
			return os.Mkdir(ro, 0o755)
		}},
	} {
		t.Run(swap.name, func(t *testing.T) {
			os.RemoveAll(ro)
			os.RemoveAll(ro + ".orig")
			if err := os.Mkdir(ro, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := Command(&Policy{Rules: []Rule{{Path: ro, Access: ReadWrite}}}, "/bin/true")
			cmd.afterPrepare = func() {
				if err := swap.do(); err != nil {
					t.Error(err)
				}
			}
			err := cmd.Run()
			var se *SetupError
			if !errors.As(err, &se) || se.Code != ExitSetup ||
				!strings.Contains(err.Error(), "symlink") && !strings.Contains(err.Error(), "another file") {
				t.Errorf("got %v", err)
			}
		})
	}
}

// Rules in one directory, planned with that directory held open, are
// refused when the directory is moved away and a symlink to it put in
// its place: every file is still the one checked (its inode), so only
// the init's refusal of a symlink on the way stops the mount or the
// Landlock rule, under either init and either isolation.
func TestDirectoryOfRulesSwappedIsRefused(t *testing.T) {
	needSandbox(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(base, "d")
	for _, init := range []string{"raw", "go"} {
		for _, iso := range []Isolation{IsolationFull, IsolationLandlock} {
			t.Run(fmt.Sprintf("%s/%d", init, iso), func(t *testing.T) {
				t.Setenv("NSRUN_INIT", init)
				os.RemoveAll(d)
				os.RemoveAll(d + ".orig")
				for _, p := range []string{d, d + "/a", d + "/b"} {
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				var log bytes.Buffer
				cmd := Command(&Policy{Isolation: iso, Rules: []Rule{{Path: d + "/a", Access: ReadWrite}, {Path: d + "/b", Access: ReadOnly}}},
					"/bin/true")
				cmd.Log = &log
				cmd.afterPrepare = func() {
					if err := os.Rename(d, d+".orig"); err != nil {
						t.Error(err)
					}
					if err := os.Symlink(d+".orig", d); err != nil {
						t.Error(err)
					}
				}
				err := cmd.Run()
				var se *SetupError
				if !errors.As(err, &se) || se.Code != ExitSetup || !strings.Contains(err.Error(), "symlink") {
					t.Errorf("got %v\n%s", err, log.String())
				}
			})
		}
	}
}

// A profile may kill clock_gettime (the payload reads the clock through
// the vDSO, which no filter sees): the init's -v steps after the filter
// is loaded must not call it, or -v alone ends the sandbox. Both inits,
// with and without -v, run the payload.
func TestVerboseUnderAProfileKillingTheClock(t *testing.T) {
	needSandbox(t)
	profile := filepath.Join(t.TempDir(), "clock.json")
	if err := os.WriteFile(profile, []byte(`{"defaultAction": "SCMP_ACT_ALLOW",
		"syscalls": [{"names": ["clock_gettime"], "action": "SCMP_ACT_KILL_PROCESS"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, init := range []string{"raw", "go"} {
		for _, verbose := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/verbose=%v", init, verbose), func(t *testing.T) {
				t.Setenv("NSRUN_INIT", init)
				var out, log bytes.Buffer
				cmd := Command(&Policy{Seccomp: profile}, "/bin/echo", "ran")
				cmd.Stdout = &out
				if verbose {
					cmd.Log = &log
				}
				if err := cmd.Run(); err != nil || out.String() != "ran\n" {
					t.Errorf("got %v, output %q\n%s", err, out.String(), log.String())
				}
				if verbose && !strings.Contains(log.String(), "init: seccomp filter loaded") {
					t.Errorf("no step after the filter:\n%s", log.String())
				}
			})
		}
	}
}

// A program with a large heap forks the init through the fork helper
// (forking itself would copy its page tables): the sandbox behaves the
// same, its status and output included, and the helper is gone with it.
func TestLargeProgramForksThroughTheHelper(t *testing.T) {
	needSandbox(t)
	t.Setenv("NSRUN_FORK_HELPER", "")
	heap := make([]byte, (sandbox.ForkHelperMiB+16)<<20)
	for i := 0; i < len(heap); i += 4096 {
		heap[i] = 1
	}
	var out, log bytes.Buffer
	cmd := Command(nil, "/bin/sh", "-c", "echo through; exit 5")
	cmd.Stdout, cmd.Log = &out, &log
	err := cmd.Run()
	runtime.KeepAlive(heap)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 5 {
		t.Fatalf("got %v, want exit 5 (output %q)", err, out.String())
	}
	if !strings.Contains(log.String(), "fork helper (over 64 MiB resident)") {
		t.Errorf("the helper was not used: %s", log.String())
	}
	if out.String() != "through\n" {
		t.Errorf("output %q", out.String())
	}
	killed := Command(nil, "/bin/sh", "-c", "kill -KILL $$")
	if err := killed.Run(); !errors.As(err, &ee) || ee.Code != 137 || ee.Signal != 9 {
		t.Errorf("payload killed by SIGKILL: %v", err)
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(b), launch.ForkStage+"\x00") {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			t.Errorf("a fork helper is left: pid %s", e.Name())
		}
	}
}

// With ShareMemory the raw init shares this process's memory: many at
// once, each sandbox whole, nothing left behind, whoever runs it (each
// init's id maps written by this process), and this process still
// dumpable: pid 1 keeps a capability instead, which its payload lacks.
func TestLibrarySharedMemory(t *testing.T) {
	needSandbox(t)
	fds := countFDs(t)
	shares := rawinit.CanShareMemory
	var wg sync.WaitGroup
	const n = 50
	errs := make(chan error, n)
	logs := make([]bytes.Buffer, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			// No version manager's shims in HOME: they take an
			// overlay, which only the Go init builds.
			cmd := Command(nil, "/bin/sh", "-c", "tr -d '\\0' </proc/1/cmdline 2>/dev/null; echo; cat /proc/1/environ 2>&1 >/dev/null | grep -c -e 'Permission denied' -e 'No such file'")
			cmd.Env = []string{"HOME=/", "PATH=/usr/bin:/bin"}
			cmd.Stdout, cmd.Log, cmd.ShareMemory = &out, &logs[i], true
			want := "nsrun-init\n1\n"
			if shares {
				// pid 1 is hidden from the payload
				// (hidepid=ptraceable): no command line, no environ.
				want = "\n1\n"
			}
			if err := cmd.Run(); err != nil || out.String() != want {
				errs <- fmt.Errorf("run: %v; output %q, want %q; log:\n%s", err, out.String(), want, logs[i].String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	say := ", a copy of this process's memory (shared memory is not supported here)"
	if shares {
		say = ", sharing this process's memory"
	}
	// An init that gets a copy is the Go one through the fork helper
	// past the helper's threshold (this test binary after others).
	helped := !shares && strings.Contains(logs[0].String(), "the Go init: over ")
	if !helped && (!strings.Contains(logs[0].String(), "the raw init started at ") || !strings.Contains(logs[0].String(), say)) {
		t.Errorf("the log does not say %q:\n%s", say, logs[0].String())
	}
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 1 {
		t.Errorf("this process is not dumpable after sharing its memory with an init: %d, %v", d, err)
	}
	if n := countFDs(t); n > fds {
		t.Errorf("%d descriptors open after, %d before", n, fds)
	}
}

// TestLibrarySharedMemoryRepeated: a program launching sandboxes whose
// init shares its memory, one after another and two at a time, stays
// dumpable (its /proc files its user's, so it can write each later
// init's id maps: every launch shares), and no payload finds any of its
// arguments or environment in any /proc file it can read.
func TestLibrarySharedMemoryRepeated(t *testing.T) {
	needSandbox(t)
	if !rawinit.CanShareMemory {
		t.Skip("shared memory is not supported here")
	}
	// This process's own argv and environment, as the kernel keeps them
	// (what /proc/1/cmdline and /proc/1/environ of a shared pid 1 show).
	var secrets []string
	for _, f := range []string{"/proc/self/cmdline", "/proc/self/environ"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strings.Split(string(b), "\x00") {
			// The payload's own environment is these two, and its
			// shell's PWD, this process's working directory too.
			if len(s) >= 8 && s != "HOME=/" && s != "PATH=/usr/bin:/bin" && !strings.HasPrefix(s, "PWD=") {
				secrets = append(secrets, s)
			}
		}
	}
	if len(secrets) == 0 {
		t.Fatal("nothing to look for")
	}
	launch := func() error {
		var out, log bytes.Buffer
		cmd := Command(nil, "/bin/sh", "-c", "cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'")
		cmd.Env = []string{"HOME=/", "PATH=/usr/bin:/bin"}
		cmd.Stdout, cmd.Log, cmd.ShareMemory = &out, &log, true
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("run: %v; log:\n%s", err, log.String())
		}
		if !strings.Contains(log.String(), ", sharing this process's memory") {
			return fmt.Errorf("the init did not share this process's memory:\n%s", log.String())
		}
		for _, s := range secrets {
			if strings.Contains(out.String(), s) {
				return fmt.Errorf("the payload read %q of this process:\n%s", s, out.String())
			}
		}
		return nil
	}
	dumpable := func() {
		t.Helper()
		if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 1 {
			t.Fatalf("this process is not dumpable: %d, %v", d, err)
		}
	}
	for i := 0; i < 2; i++ {
		if err := launch(); err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
		dumpable()
	}
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() { errs <- launch() }()
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	dumpable()
}
