package nsrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// Commands of one session share its /tmp and its processes; each gets its
// own streams and exit status.
func TestSessionSharedState(t *testing.T) {
	needSandbox(t)
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Command("/bin/sh", "-c", "echo kept > /tmp/state").Run(); err != nil {
		t.Fatal(err)
	}
	out, err := s.Command("/bin/cat", "/tmp/state").Output()
	if err != nil || string(out) != "kept\n" {
		t.Fatalf("second command: %q, %v", out, err)
	}
	err = s.Command("/bin/sh", "-c", "exit 7").Run()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 7 {
		t.Fatalf("exit 7: %v", err)
	}
	err = s.Command("/no/such/command").Run()
	if ExitCode(err) != ExitNotFound {
		t.Fatalf("missing command: %v (code %d)", err, ExitCode(err))
	}
	// Every command is a child of the session's init, pid 1 inside.
	out, err = s.Command("/bin/sh", "-c", "echo $PPID").Output()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Fatalf("parent of a command: %q, %v", out, err)
	}
}

// Commands may be started from many goroutines at once.
func TestSessionConcurrent(t *testing.T) {
	needSandbox(t)
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b bytes.Buffer
			c := s.Command("/bin/sh", "-c", fmt.Sprintf("echo %d > /tmp/f%d; cat /tmp/f%d", i, i, i))
			c.Stdout = &b
			if err := c.Run(); err != nil {
				errs <- err
				return
			}
			if got := strings.TrimSpace(b.String()); got != fmt.Sprint(i) {
				errs <- fmt.Errorf("command %d printed %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A command's Timeout ends the command, not the session.
func TestSessionCommandTimeout(t *testing.T) {
	needSandbox(t)
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.Command("/bin/sleep", "30")
	c.Timeout = 200 * time.Millisecond
	start := time.Now()
	err = c.Run()
	var ee *ExitError
	if !errors.As(err, &ee) || !ee.TimedOut || time.Since(start) > 10*time.Second {
		t.Fatalf("timed-out command: %v after %v", err, time.Since(start))
	}
	if out, err := s.Command("/bin/echo", "alive").Output(); err != nil || string(out) != "alive\n" {
		t.Fatalf("after a timeout: %q, %v", out, err)
	}
}

// After Close, nothing runs: a command cannot start.
func TestSessionClosed(t *testing.T) {
	needSandbox(t)
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Command("/bin/sh", "-c", "sleep 100 >/dev/null 2>&1 &").Run(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Command("/bin/true").Run(); ExitCode(err) != ExitSetup {
		t.Fatalf("a command after Close: %v", err)
	}
	if _, err := StartSession(context.Background(), &Policy{Isolation: IsolationLandlock}); ExitCode(err) != ExitSetup {
		t.Fatalf("a Landlock-only session: %v", err)
	}
	p := &Policy{}
	s2, err := StartSession(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	c := s2.Command("/bin/true")
	c.Policy = &Policy{Net: NetHost}
	if err := c.Run(); ExitCode(err) != ExitSetup {
		t.Fatalf("a command with another policy: %v", err)
	}
}

// The report after Close lists every command, concurrent ones included,
// what was left running and killed, and why the session ended; the
// context's deadline ends a session as "timeout". Run with -race.
func TestSessionReportAfterClose(t *testing.T) {
	needSandbox(t)
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Command("/bin/sh", "-c", "sleep 1000 >/dev/null 2>&1 &").Run(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.Command("/bin/sh", "-c", fmt.Sprintf("exit %d", i)).Run()
			_ = s.Report() // read while commands run
		}()
	}
	wg.Wait()
	_ = s.Command("/no/such/command").Run()
	if r := s.Report(); r.Session != nil {
		t.Errorf("a running session's report has its end: %+v", r.Session)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := s.Report().Session
	if r == nil || r.Ended != "close" || len(r.Commands) != 10 {
		t.Fatalf("session report: %+v", r)
	}
	codes := map[int]bool{}
	for _, c := range r.Commands[1:9] {
		codes[c.Exit.Code] = true
		if c.Pid <= 1 || c.For != "" || c.Started.IsZero() {
			t.Errorf("command: %+v", c)
		}
	}
	if len(codes) != 8 || r.Commands[9].Exit.Code != ExitNotFound || r.Commands[9].Error == "" {
		t.Errorf("commands: %+v", r.Commands)
	}
	if len(r.Killed) != 1 || strings.Join(r.Killed[0].Command, " ") != "sleep 1000" {
		t.Errorf("killed: %+v", r.Killed)
	}

	// A session past its deadline kills its command. The deadline must
	// come while the command runs: on a loaded machine the session may
	// take longer than a short one to start, so it doubles until it does.
	for d := 500 * time.Millisecond; ; d *= 2 {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		s2, err := StartSession(ctx, &Policy{})
		if err != nil {
			cancel()
			if d < 16*time.Second && ctx.Err() != nil {
				continue
			}
			t.Fatal(err)
		}
		c := s2.Command("/bin/sleep", "30")
		if err := c.Start(); err != nil {
			cancel()
			_ = s2.Close()
			if d < 16*time.Second {
				continue
			}
			t.Fatalf("the command did not start in a session of %v: %v", d, err)
		}
		if err := c.Wait(); err == nil {
			t.Fatal("a command outlived its session")
		}
		<-s2.Done()
		r = s2.Report().Session
		if r == nil || r.Ended != "timeout" || len(r.Commands) != 1 || r.Commands[0].Exit.Signal == nil || *r.Commands[0].Exit.Signal != 9 {
			t.Fatalf("a session past its deadline: %+v", r)
		}
		cancel()
		_ = s2.Close()
		return
	}
}

// A command in a running session, against a one-shot sandbox of the same
// policy: go test -run '^$' -bench 'Session|OneShot' .
func BenchmarkSessionCommand(b *testing.B) {
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		b.Skip(err)
	}
	defer s.Close()
	for b.Loop() {
		if err := s.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOneShotCommand(b *testing.B) {
	for b.Loop() {
		if err := Command(&Policy{}, "/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TTYAlways: a pty's slave given as Stdin is the command's controlling
// terminal; anything else is refused.
func TestSessionTTY(t *testing.T) {
	needSandbox(t)
	s, err := StartSession(context.Background(), &Policy{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.Command("/bin/true")
	c.TTY = TTYAlways
	if err := c.Run(); ExitCode(err) != ExitSetup {
		t.Errorf("TTYAlways without a terminal: %v", err)
	}
	master, slave := callerPTY(t)
	c = s.Command("/bin/sh", "-c", "test -t 0 && exec 3</dev/tty && echo ctty-ok")
	c.TTY, c.Stdin, c.Stdout, c.Stderr = TTYAlways, slave, slave, slave
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	out, _ := io.ReadAll(master) // EIO once the command is gone
	if !strings.Contains(string(out), "ctty-ok") {
		t.Errorf("the command's terminal: %q", out)
	}
}
