package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"unicode"

	"github.com/nsrun/nsrun"
)

var version = "dev"

// run is the whole command line; it returns the exit status.
func run(args []string, stdin *os.File, stdout, stderr *os.File) int {
	if len(args) > 0 {
		switch args[0] {
		case "probe":
			return probe(args[1:], stdout, stderr)
		case "version", "--version":
			fmt.Fprintln(stdout, "nsrun", version)
			return 0
		case "policy":
			return policyCommand(args[1:], stdout, stderr)
		case "changes":
			return changesCommand(args[1:], stdout, stderr)
		case "bwrap":
			return bwrapMain("bwrap", args[1:], stdin, stdout, stderr)
		case "session":
			return sessionCommand(args[1:], stdout, stderr)
		case "exec":
			return execCommand(args[1:], stdin, stdout, stderr)
		}
	}
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(withFlags(err.Error(), err)))
		return nsrun.ExitSetup
	}
	if o.help {
		writeUsage(stdout)
		return 0
	}
	var report *reportFile
	if o.report != "" {
		if report, err = openReport(o.report, stderr); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", o.report, oneLine(err.Error()))
			return nsrun.ExitSetup
		}
	}

	m, err := merge(o, os.Environ())
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(withFlags(err.Error(), err)))
		return nsrun.ExitSetup
	}
	if o.printProf {
		return printProfile(m.policy, stdout, stderr)
	}
	share, err := shareMemoryFromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", err)
		return nsrun.ExitSetup
	}
	cmd := nsrun.Command(m.policy, o.args[0], o.args[1:]...)
	cmd.ShareMemory = share
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Dir, cmd.Timeout, cmd.Env, cmd.TTY = m.dir, m.timeout, m.env, o.tty
	// The grace of --kill-after: the timeout's SIGTERM, then its SIGKILL.
	cmd.WaitDelay = m.killAfter
	if o.verbose {
		cmd.Log = stderr
	}
	if !o.quiet {
		cmd.Warnings = stderr
	}

	// Signals to nsrun go to the payload; the sandbox's init passes them on.
	// Registering and unregistering each wait for the runtime's signal
	// thread (~0.5 ms), so neither is on the way in or out.
	sigs := make(chan os.Signal, 8)
	registered := make(chan struct{})
	go func() {
		signal.Notify(sigs, forwardedSignals...)
		close(registered)
	}()
	defer func() {
		go func() {
			<-registered
			signal.Stop(sigs)
		}()
	}()

	err = cmd.Start()
	if err == nil {
		err = waitForwarding(cmd, sigs)
	}
	code := nsrun.ExitCode(err)
	if err != nil && !isPayloadExit(err) {
		fmt.Fprintln(stderr, "nsrun:", oneLine(describe(err)))
	}
	if m.policy.TraceDenials {
		for _, line := range nsrun.DenialSummary(cmd.Report()) {
			fmt.Fprintln(stderr, "nsrun:", oneLine(line))
		}
	}
	// Wait returned: the sandbox is gone, nothing of it can tamper with
	// the report's place any more.
	if report != nil {
		if werr := report.write(cmd.Report()); werr != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", o.report, werr)
			if code == 0 {
				code = nsrun.ExitSetup
			}
		}
	}
	return code
}

// waitForwarding waits for the started cmd, passing it each signal that
// arrives on sigs meanwhile (the sandbox's init passes them on to the
// payload).
func waitForwarding(cmd *nsrun.Cmd, sigs <-chan os.Signal) error {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				_ = cmd.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return err
}

// oneLine escapes control characters, so that a message naming a path or
// value with a newline in it stays one line.
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isPayloadExit reports whether err only says how the payload ended, which
// the exit status already tells (a timeout is still worth a line).
func isPayloadExit(err error) bool {
	var ee *nsrun.ExitError
	return errors.As(err, &ee) && !ee.TimedOut && ee.Appeared == ""
}

// describe names the option behind an error where one is to blame.
func describe(err error) string {
	return withFlags(typedText(err), err)
}

// typedText is err's message, built from a typed error's fields where
// the command names the setting at fault by its flag.
func typedText(err error) string {
	var re *nsrun.RuleError
	if errors.As(err, &re) {
		opt, val := "--root", re.Rule.Path
		if re.Rule.Access != 0 {
			opt = "--" + re.Rule.Option()
		}
		if re.Rule.From != "" {
			val = re.Rule.From + " " + re.Rule.Path
		}
		return fmt.Sprintf("%s %s: %v", opt, val, re.Err)
	}
	var de *nsrun.DirError
	if errors.As(err, &de) {
		return fmt.Sprintf("--chdir %s: %v", de.Dir, de.Err)
	}
	var ie *nsrun.IDError
	if errors.As(err, &ie) {
		return fmt.Sprintf("--%s: %v", ie.Kind, ie.Err)
	}
	var sce *nsrun.SeccompError
	if errors.As(err, &sce) {
		name := sce.Path
		if name == "" {
			name = "default"
		}
		return fmt.Sprintf("--seccomp %s: %v", name, sce.Err)
	}
	var le *nsrun.LimitError
	if errors.As(err, &le) {
		return fmt.Sprintf("--%s: %v", le.Option, le.Err)
	}
	var we *nsrun.WorkspaceError
	if errors.As(err, &we) {
		return "--preset: " + we.Error()
	}
	var ne *nsrun.NetError
	if errors.As(err, &ne) {
		if ne.Value != "" {
			return fmt.Sprintf("--%s %q: %v", ne.Option, ne.Value, ne.Err)
		}
		return fmt.Sprintf("--%s: %v", ne.Option, ne.Err)
	}
	var ise *nsrun.IsolationError
	if errors.As(err, &ise) {
		return fmt.Sprintf("--%s: needs namespaces, which --isolation landlock does not create", ise.Setting)
	}
	return err.Error()
}

// printProfile prints the Seatbelt profile of p and the sandbox-exec
// parameters that go with it.
func printProfile(p *nsrun.Policy, stdout, stderr *os.File) int {
	prof, err := p.SeatbeltProfile()
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: --print-profile:", describe(err))
		return nsrun.ExitSetup
	}
	fmt.Fprint(stdout, prof.Text)
	for _, prm := range prof.Params {
		fmt.Fprintf(stdout, ";; -D %s=%s\n", prm.Name, prm.Value)
	}
	return 0
}
