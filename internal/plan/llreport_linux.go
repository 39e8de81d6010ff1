package plan

import (
	"fmt"
	"strings"

	"github.com/nsrun/nsrun/landlock"
)

// UnixMode is how a Landlock-only sandbox keeps the payload from the host's
// unix sockets.
type UnixMode int

const (
	UnixLandlock  UnixMode = iota // Landlock's resolve_unix (ABI 9)
	UnixChecked                   // the supervisor checks every connect; datagram sockets refused
	UnixPairsOnly                 // connects cannot be checked: only socketpair's streams
	UnixOpen                      // --allow-host-unix-sockets: nothing
)

// PickUnixMode picks the mechanism: Landlock's where the kernel has it; the
// supervisor's checks where it can take the payload's sockets
// (pidfd_getfd, which container profiles refuse without CAP_SYS_PTRACE);
// refusing unconnected unix sockets otherwise.
func PickUnixMode(handled landlock.FS, allowHost, getfd bool) UnixMode {
	switch {
	case allowHost:
		return UnixOpen
	case handled&landlock.ResolveUnix != 0:
		return UnixLandlock
	case getfd:
		return UnixChecked
	}
	return UnixPairsOnly
}

// LandlockOnlyFacts decide what a Landlock-only sandbox's report says it made up
// for and what it left open.
type LandlockOnlyFacts struct {
	Handled    landlock.Request // what Landlock enforces
	ABI        int
	NetNone    bool
	Unix       UnixMode
	Entries    bool     // the supervisor makes entries where Landlock cannot
	Cgroup     string   // the cgroup every process of the sandbox is in, or ""
	DeniedDirs []string // denied directories, whose names can be listed
}

// LandlockOnlyReport lists the compensations a Landlock-only sandbox applies (what
// stands in for what Landlock lacks) and the gaps that remain, each a line
// a user can read: the reason "enforcement" is "partial".
func LandlockOnlyReport(f LandlockOnlyFacts) (compensations, gaps []string) {
	switch f.Unix {
	case UnixLandlock:
		compensations = append(compensations, "unix sockets: Landlock (resolve_unix) lets the payload connect only to sockets in its writable paths")
	case UnixChecked:
		compensations = append(compensations,
			fmt.Sprintf("unix sockets: nsrun's supervisor (seccomp user notification) resolves every connect() address itself and connects only to sockets in the writable paths and the private temporary directory (Landlock ABI %d has no resolve_unix; ABI 9 has)", f.ABI),
			"unix datagram sockets refused (seccomp, EACCES): a datagram can be addressed to any socket path")
	case UnixPairsOnly:
		compensations = append(compensations, "unix sockets refused (seccomp, EACCES), socketpair's streams excepted: this process may not take another's descriptors (pidfd_getfd; a container gives it with CAP_SYS_PTRACE), so connects cannot be checked")
	case UnixOpen:
		gaps = append(gaps, "host unix sockets (docker.sock, the ssh agent, D-Bus) are reachable (--allow-host-unix-sockets)")
	}
	if f.Entries {
		compensations = append(compensations, "directories on the way to a read-only or denied path inside a writable one, or to a name kept absent: the supervisor creates, removes, renames and opens for writing their entries, by the policy, which Landlock cannot give there without giving it to the protected path")
	}
	if f.NetNone {
		compensations = append(compensations, "--net none without a network namespace: seccomp refuses every socket but unix and netlink (no UDP, TCP, TCP Fast Open, listen() or ping), whatever the Landlock ABI")
	}
	compensations = append(compensations,
		"chmod, chown, utimes, setxattr, removexattr and chattr: performed by the supervisor only on files in the writable paths (Landlock does not check metadata)",
		"prlimit64, setpriority, ioprio_set and sched_set*: only on the calling process (seccomp and the supervisor; Landlock does not scope them)",
		"io_uring refused (seccomp): its operations pass no filter and no supervisor")
	procs := "processes: a child subreaper outside the payload's Landlock domain ends every process of the sandbox when the payload exits, at the timeout and when nsrun dies"
	if f.Cgroup != "" {
		procs += "; they are also in the cgroup " + f.Cgroup + ", ended with cgroup.kill"
	}
	compensations = append(compensations, procs)

	gaps = append(gaps,
		"no namespaces: host processes, the host's network interfaces and System V IPC objects are visible, and the latter reachable by the same user",
		"mmap(PROT_EXEC) is not checked: a file that cannot be executed still runs through the dynamic loader (ld.so FILE)",
		"stat, access, readlink and getxattr are not checked: the names, sizes, times and attributes of denied files can be read")
	if len(f.DeniedDirs) > 0 {
		gaps = append(gaps, "the names in "+strings.Join(f.DeniedDirs, ", ")+" can be listed, not their files read: Landlock's read_dir on a directory reaches every directory below it")
	}
	if f.Handled.Scope&landlock.Signal == 0 {
		gaps = append(gaps, fmt.Sprintf("signals reach host processes of the same user, the supervisor included (Landlock ABI %d < 6): the payload can end the supervisor, and processes may then outlive the sandbox", f.ABI))
	}
	if f.Handled.Scope&landlock.AbstractUnixSocket == 0 {
		gaps = append(gaps, fmt.Sprintf("abstract unix sockets of the host are reachable (Landlock ABI %d < 6)", f.ABI))
	}
	return compensations, gaps
}

// NarrowedWarning is the one line saying what the policy asked for and
// Landlock cannot express: writable directories on the way to a read-only
// or denied path, whose entries the supervisor makes (or, where it cannot,
// nothing can be created, removed or renamed directly in them), and
// denied directories whose names can be listed.
func NarrowedWarning(narrowed []landlock.Narrow, denied []string, entries bool) string {
	var dirs, unreadable []string
	for _, n := range narrowed {
		if n.Lost&landlock.Bind == 0 {
			continue
		}
		dirs = append(dirs, fmt.Sprintf("%s (which holds %s)", n.Dir, some(n.Holes, 3, "paths", ", ")))
		if n.Lost&landlock.ReadFile != 0 {
			unreadable = append(unreadable, n.Dir)
		}
	}
	var parts []string
	switch {
	case len(dirs) > 0 && entries:
		parts = append(parts, "in "+some(dirs, 5, "directories", "; ")+", nsrun's supervisor creates, removes and renames entries and opens files for writing, "+
			"which Landlock cannot allow there without allowing it below (slower there); the paths it holds and their directories cannot be removed or renamed")
		if len(unreadable) > 0 {
			parts = append(parts, "new files directly in "+some(unreadable, 5, "directories", ", ")+" cannot be opened again for reading or executed (a denied file there keeps Landlock from allowing it)")
		}
	case len(dirs) > 0:
		parts = append(parts, "nothing can be created, removed or renamed directly in "+some(dirs, 5, "directories", "; ")+
			": Landlock cannot keep those rights from reaching what lies below; their files stay writable and their other subdirectories fully writable")
	}
	if len(denied) > 0 {
		parts = append(parts, "the names in "+strings.Join(denied, ", ")+" can be listed, though not their files read")
	}
	if len(parts) == 0 {
		return ""
	}
	return "--isolation landlock: " + strings.Join(parts, "; ")
}

// some joins the first n of list with sep and says how many more there
// are: a workspace with hundreds of repositories (each with read-only
// parts, under the agent preset) would otherwise make the line as long.
func some(list []string, n int, what, sep string) string {
	if len(list) <= n {
		return strings.Join(list, sep)
	}
	return fmt.Sprintf("%s%sand %d more %s", strings.Join(list[:n], sep), sep, len(list)-n, what)
}
