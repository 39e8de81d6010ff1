package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/landlock"
)

// LandlockOnlyProbe is what a sandbox of Landlock and seccomp alone can
// enforce on this host (the root package's ProbeLandlockOnly).
type LandlockOnlyProbe struct {
	OK            bool
	Detail        string
	Enforced      []string
	Compensations []string
	NotEnforced   []string
}

// ProbeLandlockOnly says what --isolation landlock enforces here, with the
// defaults (--net none, no cgroup limits), for Landlock ABI abi; getfd says
// whether this process may take another's descriptors (pidfd_getfd), asked
// only where the rest lets the sandbox run.
func ProbeLandlockOnly(abi int, getfd func() bool) LandlockOnlyProbe {
	if abi < 1 {
		return LandlockOnlyProbe{Detail: "no Landlock: --isolation landlock is refused"}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/seccomp/actions_avail"); err != nil || !strings.Contains(string(b), "user_notif") {
		return LandlockOnlyProbe{Detail: "the kernel's seccomp has no user notification, which the supervisor needs: --isolation landlock is refused"}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) >= "2" {
		return LandlockOnlyProbe{Detail: "kernel.yama.ptrace_scope=" + strings.TrimSpace(string(b)) + " keeps the supervisor from reading the payload's calls: --isolation landlock is refused"}
	}
	fs := RW
	if abi >= 9 {
		fs |= landlock.ResolveUnix
	}
	noNet := landlock.BindTCP | landlock.ConnectTCP | landlock.BindUDP | landlock.ConnectSendUDP
	d := landlock.Decide(landlock.Request{FS: fs, Net: noNet, Scope: landlock.AbstractUnixSocket | landlock.Signal}, abi, 0)
	facts := LandlockOnlyFacts{Handled: d.Handled, ABI: abi, NetNone: true, Unix: PickUnixMode(d.Handled.FS, false, getfd())}
	if cg := cgroup.NewKill(); cg != nil {
		facts.Cgroup = filepath.Dir(cg.Dir()) + "/nsrun-*"
		cg.Remove()
	}
	out := LandlockOnlyProbe{OK: true, Enforced: landlockEnforced(d.Handled)}
	out.Compensations, out.NotEnforced = LandlockOnlyReport(facts)
	out.Detail = fmt.Sprintf("Landlock ABI %d, with nsrun's seccomp filter and supervisor for what it does not check; partial (no namespaces)", abi)
	return out
}

// landlockEnforced names what Landlock itself enforces with these rights.
func landlockEnforced(h landlock.Request) []string {
	out := []string{"files: readable everywhere but --deny paths, writable only in --rw paths and a private temporary directory, executable only from the system's directories and the rules' paths"}
	if h.FS&landlock.Truncate != 0 {
		out = append(out, "truncation only in writable paths")
	}
	if h.FS&landlock.IoctlDev != 0 {
		out = append(out, "device ioctls only on /dev/null, /dev/tty and the like")
	}
	if h.Net&(landlock.BindTCP|landlock.ConnectTCP) != 0 {
		out = append(out, "TCP: no port with --net none, only the --allow-connect/--allow-bind ones with --net host")
	}
	if h.Net&landlock.ConnectSendUDP != 0 {
		out = append(out, "UDP: as TCP")
	}
	if h.Scope&landlock.AbstractUnixSocket != 0 {
		out = append(out, "abstract unix sockets: only the sandbox's own")
	}
	if h.Scope&landlock.Signal != 0 {
		out = append(out, "signals: only to the sandbox's own processes")
	}
	if h.FS&landlock.ResolveUnix != 0 {
		out = append(out, "pathname unix sockets: only in writable paths")
	}
	out = append(out, "ptrace, /proc/PID/mem, process_vm_*, pidfd_getfd and kcmp: only on the sandbox's own processes")
	return out
}
