// Package nsrun runs a command in a sandbox and tells the truth about what
// the sandbox enforced.
//
// On Linux a sandbox is a set of fresh user, mount, PID, IPC, UTS, cgroup
// and (unless Policy.Net is NetHost) network namespaces; a read-only view of
// the host root (or of Policy.Root) with a fresh /dev, a private /proc, a
// tmpfs /tmp and /run, and the Policy's rules laid over it; and a payload
// that runs with no capabilities and NO_NEW_PRIVS under a pid-1 init that
// reaps every process and ends them all when the payload exits.
//
// A program using this package must call Init first in main: the sandbox's
// init is the same program started again, and Init runs it.
//
//	func main() {
//		if code, ran := nsrun.Init(); ran {
//			os.Exit(code)
//		}
//		cmd := nsrun.Command(&nsrun.Policy{Rules: []nsrun.Rule{{Path: "ws", Access: nsrun.ReadWrite}}}, "make")
//		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
//		err := cmd.Run()
//		...
//	}
//
// Nothing is ever run with less isolation than asked for: when a part of the
// sandbox cannot be built, Start returns a *SetupError and the command does
// not run. The Report says which layers were enforced; the Landlock and
// seccomp layers are not part of this build yet and are reported "off".
//
// Kernel minimum: 5.12 (open_tree, move_mount, fsopen, openat2,
// mount_setattr), with user namespaces allowed for the calling user.
// Other systems build but Start returns ErrUnsupported.
package nsrun
