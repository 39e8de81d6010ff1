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
	var report *reportFile
	if o.report != "" {
		if report, err = openReport(o.report, stderr); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", o.report, oneLine(err.Error()))
			return nsrun.ExitSetup
		}
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

const usage = `usage: nsrun [OPTIONS] [--] COMMAND [ARG...]
       nsrun changes [apply] DIR               what --keep-changes DIR kept; apply it to the host
       nsrun probe [--json]
       nsrun policy explain [OPTIONS] PATH...   which rule decides each path
       nsrun policy show [OPTIONS]              the rules in effect
       nsrun version (or --version)

Filesystem (host paths; they appear at the same place inside; the deepest
rule decides, for the same path the most restrictive):
  --rw PATH         PATH writable
  --ro PATH         PATH read-only (e.g. to protect WS/.git inside --rw WS)
  --deny PATH       PATH hidden behind an empty read-only directory or file
  --tmpfs DIR       a fresh empty tmpfs at DIR
  --root DIR        DIR instead of the host root (read-only)
  --bind SRC DEST   host SRC writable at DEST inside (DEST absolute; made where missing,
                    never on the host or the root), --ro-bind SRC DEST read-only
  --overlay DIR     DIR writable; what is written goes to a layer of the sandbox's own,
                    discarded, the host's DIR never changes (--overlay / with --root)
  --keep-changes DIR  keep the --overlay layers in DIR: nsrun changes [apply] DIR
  --dir DEST        an empty directory at DEST inside
  --symlink TARGET DEST   a symlink at DEST inside
  --file SRC DEST   a read-only copy of the host file SRC at DEST inside
  --dev PATH        a host character device in /dev (/dev/kvm, /dev/fuse, /dev/dri/renderD128)
  --dev-bind SRC DEST   the host character device SRC at DEST under /dev
  --dev-block PATH  a host block device in /dev: it reads and writes a whole filesystem,
                    past every permission and rule
  --sys private|host  a fresh read-only /sys of the sandbox's network (default), or the
                    host's, read-only (host NICs, cgroups; also with --net host)
Process:
  --chdir DIR       working directory inside
  --env K=V         set a variable, in command-line order with the next three
  --unset-env PATTERN   remove the variables it matches ('AWS_*'; case ignored)
  --keep-env PATTERN    let through the caller's variables it matches (over a preset)
  --clear-env       remove every variable so far
  --home private|persistent|DIR   the payload's HOME: empty per run, nsrun's own
                    kept between runs (presets agent and build), or DIR
  --hostname NAME   host name inside
  --uid N, --gid N  ids seen inside (default: the caller's)
  --timeout D       end the whole sandbox D after the command started (30s, 2m,
                    or seconds); exit 124
  --kill-after D    with --timeout: SIGTERM to the command at the timeout, and
                    the whole sandbox killed D later if it has not ended
  --tty auto|always|never  a pseudo-terminal of the sandbox's own, relayed to yours:
                    when a standard stream is a terminal (default), always, or never
Limits:
  --rlimit NAME=SOFT[:HARD]  nofile, nproc, as, cpu, fsize, core, stack, memlock (core=0 unless set)
  --tmpfs-size SIZE          caps /tmp, /dev/shm and each --tmpfs (64M, 1G; default: half of RAM)
  --memory SIZE, --pids N, --cpu FRACTION   limits in a cgroup (v2, else v1; refused where nsrun cannot make one)
Network:
  --net none|host   own namespace with only lo (default), or the host's
  --allow-connect [tcp:|udp:]PORT[-LAST]   the only ports to connect to (Landlock, with seccomp)
  --allow-bind [tcp:|udp:]PORT[-LAST]      the only ports to bind and listen on (Landlock, with seccomp)
  --allow-host PATTERN[:PORT]  reach only these hosts, through nsrun (name, *.domain, IP, CIDR;
                               default ports 80 and 443): proxy variables, DNS, direct connects
  --allow-private-hosts        let allowed names lead to loopback, private, link-local addresses
  --add-host NAME=ADDR         nsrun resolves NAME to ADDR (it allows nothing by itself)
  --publish [ADDR:]HOSTPORT:PORT   the host's ADDR:HOSTPORT (127.0.0.1) reaches PORT inside
  --host-port PORT[-LAST]      127.0.0.1:PORT inside reaches the host's 127.0.0.1:PORT
Security layers:
  --isolation full|landlock   namespaces+mounts+Landlock (default), or Landlock alone
  --landlock auto|off         apply what the kernel offers (default), or not at all
  --seccomp default|off|FILE  nsrun's filter (default), none, or an OCI/Docker profile
  --allow-userns              let the payload create namespaces (nested sandboxes)
  --proc private|host         a fresh /proc (default), or the one nsrun sees, read-only,
                              where a fresh one cannot be mounted (masked /proc); partial
  --allow-host-unix-sockets   with --isolation landlock: do not keep the payload from the
                              host's unix sockets (reported as not enforced)
  --strict                    refuse to run unless every layer is fully enforced
  --trace-denials             say what the sandbox refused: a summary on stderr at exit, the
                              list in the report's "denials" (the payload cannot use ptrace)
Policy:
  --policy FILE     a JSON policy file (rules default to the baseline source);
                    flags are the user source and apply on top
  --preset NAME     agent, build or readonly (see nsrun policy show --preset NAME)
Output:
  --report FILE     write the JSON report once the sandbox is gone ("-" for stderr)
  -v                log each setup step     -q   no warnings, nor what limits did
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
