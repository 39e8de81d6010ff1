package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
		case "version":
			fmt.Fprintln(stdout, "nsrun", version)
			return 0
		case "policy":
			return policyCommand(args[1:], stdout, stderr)
		}
	}
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(err.Error()))
		return nsrun.ExitSetup
	}
	if o.help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	var report io.WriteCloser
	if o.report != "" {
		if report, err = openReport(o.report, stderr); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", o.report, err)
			return nsrun.ExitSetup
		}
		defer report.Close()
	}

	m, err := merge(o, os.Environ())
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(err.Error()))
		return nsrun.ExitSetup
	}
	if o.printProf {
		return printProfile(m.policy, stdout, stderr)
	}
	cmd := nsrun.Command(m.policy, o.args[0], o.args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Dir, cmd.Timeout, cmd.Env = m.dir, m.timeout, m.env
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
		err = cmd.Wait()
		close(done)
	}
	code := nsrun.ExitCode(err)
	if err != nil && !isPayloadExit(err) {
		fmt.Fprintln(stderr, "nsrun:", oneLine(describe(err)))
	}
	if report != nil {
		if werr := writeReport(report, cmd.Report()); werr != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", o.report, werr)
			if code == 0 {
				code = nsrun.ExitSetup
			}
		}
	}
	return code
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
	return errors.As(err, &ee) && !ee.TimedOut
}

// describe names the option behind an error where one is to blame.
func describe(err error) string {
	var re *nsrun.RuleError
	if errors.As(err, &re) {
		opt := "--root"
		if re.Rule.Access != 0 {
			opt = "--" + re.Rule.Access.String()
		}
		return fmt.Sprintf("%s %s: %v", opt, re.Rule.Path, re.Err)
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
	var ise *nsrun.IsolationError
	if errors.As(err, &ise) {
		return fmt.Sprintf("--%s: needs namespaces, which --isolation landlock does not create", ise.Setting)
	}
	return err.Error()
}

func buildEnv(base []string, clear bool, ops []envOp) []string {
	env := map[string]string{}
	var order []string
	if !clear {
		for _, kv := range base {
			k, v, _ := splitEnv(kv)
			if _, seen := env[k]; !seen {
				order = append(order, k)
			}
			env[k] = v
		}
	}
	for _, op := range ops {
		if op.unset {
			delete(env, op.key)
			continue
		}
		if _, seen := env[op.key]; !seen {
			order = append(order, op.key)
		}
		env[op.key] = op.value
	}
	out := make([]string, 0, len(env))
	for _, k := range order {
		if v, ok := env[k]; ok {
			out = append(out, k+"="+v)
			delete(env, k)
		}
	}
	return out
}

func splitEnv(kv string) (string, string, bool) {
	// A leading '=' belongs to the name (Windows-style "=C:" entries).
	for i := 1; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

func openReport(path string, stderr *os.File) (io.WriteCloser, error) {
	if path == "-" {
		return nopCloser{stderr}, nil
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func writeReport(w io.Writer, r *nsrun.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

const usage = `usage: nsrun [OPTIONS] [--] COMMAND [ARG...]
       nsrun probe [--json]
       nsrun policy explain [OPTIONS] PATH...   which rule decides each path
       nsrun policy show [OPTIONS]              the rules in effect
       nsrun version

Filesystem (host paths; they appear at the same place inside; the deepest
rule decides, for the same path the most restrictive):
  --rw PATH         PATH writable
  --ro PATH         PATH read-only (e.g. to protect WS/.git inside --rw WS)
  --deny PATH       PATH hidden behind an empty read-only directory or file
  --tmpfs DIR       a fresh empty tmpfs at DIR
  --root DIR        DIR instead of the host root (read-only)
Process:
  --chdir DIR       working directory inside
  --env K=V         set a variable       --unset-env K   remove one
  --clear-env       start from an empty environment
  --hostname NAME   host name inside
  --uid N, --gid N  ids seen inside (default: the caller's)
  --timeout D       end the whole sandbox after D (30s, 2m, or seconds); exit 124
Limits:
  --rlimit NAME=SOFT[:HARD]  nofile, nproc, as, cpu, fsize, core, stack, memlock (core=0 unless set)
  --tmpfs-size SIZE          caps /tmp and each --tmpfs (64M, 1G; default: half of RAM)
  --memory SIZE, --pids N, --cpu FRACTION   limits in a cgroup (v2, else v1; refused where nsrun cannot make one)
Network:
  --net none|host   own namespace with only lo (default), or the host's
  --allow-connect [tcp:|udp:]PORT[-LAST]   the only ports to connect to (Landlock)
  --allow-bind [tcp:|udp:]PORT[-LAST]      the only ports to bind (Landlock)
Security layers:
  --isolation full|landlock   namespaces+mounts+Landlock (default), or Landlock alone
  --landlock auto|off         apply what the kernel offers (default), or not at all
  --seccomp default|off|FILE  nsrun's filter (default), none, or an OCI/Docker profile
  --allow-userns              let the payload create namespaces (nested sandboxes)
  --allow-host-unix-sockets   with --isolation landlock: do not keep the payload from the
                              host's unix sockets (reported as not enforced)
  --strict                    refuse to run unless every layer is fully enforced
Policy:
  --policy FILE     a JSON policy file (rules default to the baseline source);
                    flags are the user source and apply on top
  --preset NAME     agent, build or readonly (see nsrun policy show --preset NAME)
Output:
  --report FILE     write the JSON report after the run ("-" for stderr)
  -v                log each setup step     -q   no warnings
  --print-profile   print the macOS Seatbelt profile of the policy, and exit

Exit status: the command's; 128+N if killed by signal N; 124 timeout;
125 nsrun or the sandbox failed (nothing ran); 126 not executable; 127 not found.
`

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
