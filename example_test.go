package nsrun_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/nsrun/nsrun"
)

// A grader runs an untrusted submission in its job directory: the
// directory is writable and the working directory, its .git is not, the
// whole sandbox ends after a minute, and the report says what ran and what
// it used. The program's main must call nsrun.Init first (see the package
// documentation).
func Example() {
	job, err := os.MkdirTemp("", "job-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(job)
	if err := os.WriteFile(filepath.Join(job, "answer.sh"), []byte("echo 42\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(job, ".git"), 0o755); err != nil {
		log.Fatal(err)
	}
	policy := &nsrun.Policy{Rules: []nsrun.Rule{
		{Path: job, Access: nsrun.ReadWrite},
		{Path: filepath.Join(job, ".git"), Access: nsrun.ReadOnly},
	}}
	cmd := nsrun.Command(policy, "/bin/sh", "answer.sh")
	cmd.Dir = job
	cmd.Timeout = time.Minute
	out, err := cmd.Output()
	report := cmd.Report()
	if report.Usage == nil {
		log.Fatal(err) // nothing ran: the sandbox could not be built (report.Error)
	}
	fmt.Printf("output %q, exit %d, enforcement %s, in the job: %v\n", out, nsrun.ExitCode(err), report.Enforcement, report.Dir == job)
	u := report.Usage
	fmt.Printf("counted by %s: under a second of CPU %v, some memory %v, some time %v\n", u.Source, u.UserMS+u.SystemMS < 1000, u.MaxRSSKiB > 0, u.WallMS > 0)
}

// The payload's streams through pipes: write its input, read its output to
// the end, then Wait (which closes the pipes once the sandbox is gone).
func ExampleCmd_StdoutPipe() {
	cmd := nsrun.Command(nil, "/usr/bin/tr", "a-z", "A-Z")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		log.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	go func() {
		defer stdin.Close()
		fmt.Fprintln(stdin, "shout")
	}()
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		fmt.Println(lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		log.Fatal(err)
	}
}

// A deadline with a grace period: when the context's deadline passes, the
// payload gets SIGTERM (it may save its work), and the whole sandbox is
// killed if it has not ended a second later. Wait's error matches the
// context's. The same with Timeout instead of a context is the CLI's
// --timeout 500ms --kill-after 1s, and exits 124.
func ExampleCommandContext() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := nsrun.CommandContext(ctx, nil, "/bin/sh", "-c", "trap 'echo saving; exit 0' TERM; while :; do sleep 0.1; done")
	cmd.WaitDelay = time.Second
	cmd.Stdout = os.Stdout
	err := cmd.Run()
	fmt.Println("deadline:", errors.Is(err, context.DeadlineExceeded), "cancelled:", cmd.Report().Exit.Cancelled)
	// A payload that must be told another way: Cancel says how.
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd = nsrun.CommandContext(ctx, nil, "/bin/sleep", "60")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	err = cmd.Run()
	var ee *nsrun.ExitError
	fmt.Println("interrupted:", errors.As(err, &ee) && ee.Signal == int(syscall.SIGINT))
}

// Many sandboxes at once from one program: each Cmd is independent, and
// the report of each says what it used.
func Example_concurrent() {
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := nsrun.Command(nil, "/bin/sh", "-c", fmt.Sprintf("exit %d", i))
			codes[i] = nsrun.ExitCode(cmd.Run())
		}()
	}
	wg.Wait()
	fmt.Println(codes)
}

// ExitCode maps what Run and Wait return to the CLI's exit statuses.
func ExampleExitCode() {
	for _, err := range []error{
		nil,
		&nsrun.ExitError{Code: 3},
		&nsrun.ExitError{Code: 137, Signal: 9},
		&nsrun.ExitError{Code: nsrun.ExitTimeout, TimedOut: true},
		&nsrun.SetupError{Code: nsrun.ExitNotFound, Msg: "make: command not found"},
		nsrun.ErrNoInit,
	} {
		fmt.Println(nsrun.ExitCode(err))
	}
	// Output:
	// 0
	// 3
	// 137
	// 124
	// 127
	// 125
}

// A report read back, as a grader reads the file of --report.
func ExampleReport() {
	data := []byte(`{"version": 1, "command": ["./solution"], "exit": {"code": 0, "signal": null, "timed_out": false, "cancelled": false},
		"usage": {"user_ms": 812.4, "system_ms": 20.1, "max_rss_kib": 30412, "wall_ms": 845.9, "source": "cgroup"}}`)
	var r nsrun.Report
	if err := json.Unmarshal(data, &r); err != nil {
		log.Fatal(err)
	}
	u := r.Usage
	fmt.Printf("%s: exit %d, %.0f ms of CPU, %d MiB at most\n", r.Command[0], r.Exit.Code, u.UserMS+u.SystemMS, u.MaxRSSKiB>>10)
	// Output:
	// ./solution: exit 0, 832 ms of CPU, 29 MiB at most
}
