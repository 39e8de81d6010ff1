// Package nsrun runs a command in a sandbox and tells the truth about what
// the sandbox enforced.
//
// On Linux a sandbox is a set of fresh user, mount, PID, IPC, UTS, cgroup
// and (unless Policy.Net is NetHost) network namespaces; a read-only view of
// the host root (or of Policy.Root) with a fresh /dev, a private /proc, a
// tmpfs /tmp and /run, and the Policy's rules laid over it; a Landlock
// ruleset and seccomp filters; and a payload that runs with no
// capabilities and NO_NEW_PRIVS under a pid-1 init that reaps every
// process, and kills and reaps them all when the payload exits.
//
// # Init
//
// A program using this package must call Init first in main: the sandbox's
// init is the same program started again, and Init runs it. Start returns
// ErrNoInit in a program that has not called it. What slows the program's
// start slows every launch: built with -race, a program takes over a
// second per launch.
//
//	func main() {
//		if code, ran := nsrun.Init(); ran {
//			os.Exit(code)
//		}
//		cmd := nsrun.Command(&nsrun.Policy{Rules: []nsrun.Rule{{Path: "ws", Access: nsrun.ReadWrite}}}, "make")
//		cmd.Dir = "ws"
//		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
//		err := cmd.Run()
//		...
//	}
//
// # Policy and precedence
//
// A Policy is the whole description of a sandbox: Rules (a path, an
// Access, a Source), the network, limits, environment edits, the terminal.
// Rules come from several sources (SourceInternal, SourceBaseline for
// presets and policy files, SourceUser for the caller, SourceMandatory for
// protections nothing may undo); Effective applies their precedence, and
// Resolve says which rule decides a path. Policy.Effect and Effect.Explain
// answer "why was this refused?" with the same resolver every backend is
// tested against. ParsePolicyFile reads a policy file (unknown fields are
// errors), Preset returns the named presets, and Subtree builds a grant
// from a root and an identifier without ever following a symlink.
//
// # Cmd
//
// A Cmd is used as an os/exec Cmd is, with the same names meaning the same
// things (Output, the pipes, ExtraFiles, Process, Cancel, WaitDelay); the
// end of a CommandContext's context ends the whole sandbox, and Wait's
// error then matches the context's error with errors.Is. Cmd.TTY gives the
// payload a pseudo-terminal of its own; Cmd.Timeout counts from the
// payload's start.
//
// # Report
//
// Cmd.Report says which layers were enforced and which were not (never
// "enforced" for one that was not), what ran, how it ended, what the
// limits did, what the network saw and what the whole sandbox used. The
// nsrun command writes it as JSON with --report.
//
// # Errors
//
// Nothing is ever run with less isolation than asked for: when a part of
// the sandbox cannot be built, Start returns an error and the command does
// not run. A *SetupError carries the exit status (125, 126, 127), the step
// and its cause (errors.Is(err, syscall.EPERM) works); a *RuleError,
// *DirError, *IDError or *LimitError names the rule, directory, id or limit
// at fault. After the payload ran, Wait returns an *ExitError. ExitCode
// maps any of them to the status the nsrun command exits with. Their
// messages name a setting as Go code writes it (Policy.Isolation =
// IsolationLandlock), never a flag of the command. The report's advice
// (a Denial's Allow, a SuggestedOption, the lines of DenialSummary) and
// the lines written to Cmd.Warnings speak the command's flags ("--rw /x"):
// they are what a user of the command acts on.
//
// # Platforms
//
// Linux is the full backend. macOS runs the payload under a Seatbelt
// profile (the darwin package plans it) and Windows under a restricted
// token with a journal of the ACEs it adds (the windows package); both
// refuse what they cannot enforce rather than ignore it. Other systems
// build, and Start returns ErrUnsupported.
//
// # Kernel minimums
//
// Linux 5.12 (open_tree, move_mount, fsopen, openat2, mount_setattr), with
// user namespaces allowed for the calling user, or Landlock alone
// (IsolationLandlock, Landlock ABI 1 on 5.13; network rules need ABI 4 on
// 6.7, scoped signals and abstract sockets ABI 6 on 6.12). Limits need
// cgroup v2 with CLONE_INTO_CGROUP (5.7) or the cgroup v1 controllers.
// `nsrun probe` (Probe) tries each mechanism and says what this host has.
//
// # Where things happen
//
//	policy, rules, precedence   policy.go resolve.go canonical.go explain.go
//	policy files and presets    policyfile.go presets.go values.go (the reading and
//	                            checking: packages internal/policyfile, internal/values)
//	Cmd (portable shell)        command.go output.go cancel.go (its watcher: internal/watch;
//	                            Output's first and last 16 KiB of stderr: internal/outbuf)
//	per-OS backends             command_linux.go command_darwin.go command_windows.go
//	planning a Linux launch     lower_linux.go (the input checked, with plan.CheckRule
//	                            and plan.CheckInput; a Policy and Cmd lowered to
//	                            plan.Request, and its rules, git's protection and
//	                            environment once the home is made),
//	                            command_linux.go (prepare: request, plan.Make, the report);
//	                            package internal/plan (Make: the home, the mounts, the
//	                            Landlock and seccomp layers, the network, the accounts,
//	                            kept changes, --trace-denials' filters, judge and log)
//	the running sandbox         package internal/sandbox (cgroup, pipes, pty and job
//	                            control, the fork, the spec's hand-off, wait, usage)
//	the stages and their spec   package internal/launch (init, Landlock-only stage and
//	                            child, fork helper, probe stages; a session's init)
//	sessions                    session.go session_linux.go, package internal/session
//	                            (the channel to a session's init, the control socket)
//	report                      report.go report_linux.go (plans and results raised),
//	                            suggest.go (DenialSummary, Suggest)
//	host probe                  probe.go report_linux.go, internal/sandbox, internal/plan
//	mechanisms                  packages ns, mounts, landlock, seccomp, cgroup, netproxy, pty
//	macOS, Windows              seatbelt.go; packages darwin, windows (the runs)
//
// docs/ARCHITECTURE.md draws the packages, their imports and the stages of
// a launch.
package nsrun
