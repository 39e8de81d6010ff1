//go:build linux

// Command profiles writes the seccomp profiles the container tests and
// docs/kubernetes.md use, from Docker's default profile (the Go package of
// moby/profiles, Apache License 2.0):
//
//	profiles docker      Docker's default profile: user namespaces refused
//	profiles kubernetes  Docker's default plus what nsrun's sandbox needs
//	                     (clone and unshare with namespace flags, the mount
//	                     calls, sethostname): for a pod that runs nsrun
//
// Kubernetes' RuntimeDefault is containerd's or CRI-O's default, which
// refuses user namespaces as Docker's does; the second profile is the
// Localhost profile docs/kubernetes.md gives instead.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	docker "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// sandboxCalls are what nsrun needs beyond Docker's default profile to
// build a sandbox with namespaces: creating them (clone with CLONE_NEW*
// flags; clone3, which Go uses to start a process in a cgroup), and, in
// the sandbox's own user namespace, mounting, pivot_root and the host name;
// and pidfd_getfd (Docker allows it only with CAP_SYS_PTRACE), with which
// nsrun takes the descriptors it checks for the payload (a socket that
// calls listen() under port rules).
var sandboxCalls = []string{
	"clone", "clone3", "unshare", "setns", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"sethostname", "setdomainname",
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: profiles docker|kubernetes")
		os.Exit(2)
	}
	b, err := profile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "profiles:", err)
		os.Exit(2)
	}
	os.Stdout.Write(b)
}

// profile is the JSON text of the profile kind names.
func profile(kind string) ([]byte, error) {
	p := docker.DefaultProfile()
	switch kind {
	case "docker":
	case "kubernetes":
		// First in the list: the first unconditional rule for a call
		// decides (libseccomp, and so runc and crun).
		p.Syscalls = append([]*docker.Syscall{{LinuxSyscall: specs.LinuxSyscall{Names: sandboxCalls, Action: specs.ActAllow},
			Comment: "nsrun: create namespaces and build a sandbox in them"}}, p.Syscalls...)
	default:
		return nil, fmt.Errorf("unknown profile %q (docker or kubernetes)", kind)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	return append(b, '\n'), err
}
