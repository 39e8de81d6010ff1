//go:build linux

// Command floor is the least a Go launcher of nsrun's design can do: it
// re-executes itself into the seven namespaces nsrun creates, mounts /proc
// and a /tmp, and executes the command. No rules, Landlock, seccomp,
// capability drop, pivot_root or status protocol. bench/startup.sh times
// it beside bwrap and nsrun: what nsrun adds to a Go re-exec is the
// difference to this row; what the design costs is this row itself.
package main

import (
	"fmt"
	"os"
	"syscall"
)

const stage = "floor-init"

func main() {
	if os.Args[0] == stage {
		os.Exit(child())
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: floor COMMAND [ARG...]")
		os.Exit(2)
	}
	os.Exit(parent(os.Args[1:]))
}

func parent(args []string) int {
	attr := &syscall.ProcAttr{Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}}
	pid, err := syscall.ForkExec("/proc/self/exe", append([]string{stage}, args...), attr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 125
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 125
	}
	return ws.ExitStatus()
}

func child() int {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		fmt.Fprintln(os.Stderr, "floor: mount --make-rslave /:", err)
		return 125
	}
	for _, m := range []struct{ src, dst, fs string }{{"proc", "/proc", "proc"}, {"tmpfs", "/tmp", "tmpfs"}} {
		if err := syscall.Mount(m.src, m.dst, m.fs, 0, ""); err != nil {
			fmt.Fprintln(os.Stderr, "floor: mount", m.dst, err)
			return 125
		}
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	fmt.Fprintln(os.Stderr, "floor: exec", os.Args[1], err)
	return 127
}
