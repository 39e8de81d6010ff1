// Package nsrun runs a command in a sandbox and tells the truth about what
// the sandbox enforced.
//
// On Linux a sandbox is a set of fresh user, mount, PID, IPC, UTS, cgroup
// and (unless Policy.Net is NetHost) network namespaces; a read-only view of
// the host root (or of Policy.Root) with a fresh /dev, a private /proc, a
// tmpfs /tmp and /run, and the Policy's rules laid over it; a Landlock
// ruleset and a seccomp filter; and a payload that runs with no
// capabilities and NO_NEW_PRIVS under a pid-1 init that reaps every
// process, and kills and reaps them all when the payload exits.
//
// A program using this package must call Init first in main: the sandbox's
// init is the same program started again, and Init runs it. Start returns
// ErrNoInit in a program that has not called it.
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
// A Cmd is used as an os/exec Cmd is, with the same names meaning the same
// things (Output, the pipes, ExtraFiles, Process, Cancel, WaitDelay); the
// end of a CommandContext's context ends the whole sandbox, and Wait's
// error then matches the context's error with errors.Is.
//
// Nothing is ever run with less isolation than asked for: when a part of the
// sandbox cannot be built, Start returns an error (a *SetupError, or one
// naming the rule, directory or id at fault) and the command does not run.
// The Report says which layers were enforced, what ran and what the whole
// sandbox used.
//
// Kernel minimum: 5.12 (open_tree, move_mount, fsopen, openat2,
// mount_setattr), with user namespaces allowed for the calling user, or
// Landlock alone (IsolationLandlock). macOS (Seatbelt) and Windows (a
// restricted token) have thinner backends; other systems build but Start
// returns ErrUnsupported.
package nsrun
