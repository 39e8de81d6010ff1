package nsrun

import (
	"errors"
	"fmt"
	"github.com/nsrun/nsrun/internal/plan"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/moby/sys/userns"
	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
	"github.com/nsrun/nsrun/seccomp"
)

// ProbeHost finds out what this host can enforce for the calling user. It
// creates one throwaway set of namespaces to be sure.
func ProbeHost() Probe {
	var p Probe
	p.UserNamespaces, p.Procfs, p.Sysfs = probeUserns()
	p.Nested = userns.RunningInUserNS()
	if err := unix.MountSetattr(-1, "", 0, &unix.MountAttr{}); errors.Is(err, unix.ENOSYS) {
		p.MountSetattr = ProbeItem{Detail: "mount_setattr: not in this kernel (needs 5.12)"}
	} else {
		p.MountSetattr = ProbeItem{OK: true, Detail: "recursive read-only binds in one call"}
	}
	if abi, errata, err := landlock.ABI(); err != nil {
		p.Landlock = ProbeItem{Detail: err.Error()}
	} else {
		p.Landlock, p.LandlockABI = ProbeItem{OK: true, Detail: fmt.Sprintf("ABI %d, errata %#x", abi, errata)}, abi
	}
	p.Seccomp = probeItem(seccomp.Probe(), "filters available")
	p.CgroupV2, p.CgroupV2Path = probeCgroup2()
	p.Limits, p.LimitsCgroup = probeLimits()
	p.Seatbelt = ProbeItem{Detail: "not on macOS"}
	p.RestrictedToken = ProbeRestrictedToken{Detail: "not on Windows"}
	p.LandlockOnly = probeLandlockOnly(p.LandlockABI)
	return p
}

// probeLandlockOnly says what --isolation landlock enforces here, with the
// defaults (--net none, no cgroup limits).
func probeLandlockOnly(abi int) ProbeLandlockOnly {
	if abi < 1 {
		return ProbeLandlockOnly{Detail: "no Landlock: --isolation landlock is refused"}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/seccomp/actions_avail"); err != nil || !strings.Contains(string(b), "user_notif") {
		return ProbeLandlockOnly{Detail: "the kernel's seccomp has no user notification, which the supervisor needs: --isolation landlock is refused"}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) >= "2" {
		return ProbeLandlockOnly{Detail: "kernel.yama.ptrace_scope=" + strings.TrimSpace(string(b)) + " keeps the supervisor from reading the payload's calls: --isolation landlock is refused"}
	}
	fs := plan.RW
	if abi >= 9 {
		fs |= landlock.ResolveUnix
	}
	noNet := landlock.BindTCP | landlock.ConnectTCP | landlock.BindUDP | landlock.ConnectSendUDP
	d := landlock.Decide(landlock.Request{FS: fs, Net: noNet, Scope: landlock.AbstractUnixSocket | landlock.Signal}, abi, 0)
	facts := plan.LandlockOnlyFacts{Handled: d.Handled, ABI: abi, NetNone: true, Unix: plan.PickUnixMode(d.Handled.FS, false, pidfdGetfdAllowed())}
	if cg := cgroup.NewKill(); cg != nil {
		facts.Cgroup = filepath.Dir(cg.Dir()) + "/nsrun-*"
		cg.Remove()
	}
	out := ProbeLandlockOnly{OK: true, Enforced: landlockEnforced(d.Handled)}
	out.Compensations, out.NotEnforced = plan.LandlockOnlyReport(facts)
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

// probeUserns creates the namespaces of a sandbox, as the init gets them,
// and in them a fresh procfs and sysfs.
func probeUserns() (userns, procfs, sysfs ProbeItem) {
	uid, gid := os.Getuid(), os.Getgid()
	uids, gids := ns.Maps(uid, uid, gid, gid)
	var stderr strings.Builder
	cmd := &exec.Cmd{Path: reexec.Self, Args: []string{launch.ProbeStage}, Env: []string{}, Stderr: &stderr,
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: ns.CloneFlags(false), UidMappings: uids, GidMappings: gids, AmbientCaps: ns.SetupCaps}}
	if err := cmd.Start(); err != nil {
		why := ns.Explain(fmt.Errorf("create user, mount, pid, ipc, uts, cgroup and net namespaces: %w", err), ns.ReadSettings(), uid).Error()
		return ProbeItem{Detail: why}, ProbeItem{Detail: "not tried: no user namespace"}, ProbeItem{Detail: "not tried: no user namespace"}
	}
	userns = ProbeItem{OK: true, Detail: fmt.Sprintf("all namespaces can be created as uid %d", uid)}
	procfs = ProbeItem{OK: true, Detail: "a fresh procfs mounts in a new PID namespace"}
	sysfs = ProbeItem{OK: true, Detail: "a fresh sysfs mounts in a new network namespace"}
	err := cmd.Wait()
	if err == nil {
		return userns, procfs, sysfs
	}
	why := strings.TrimSpace(stderr.String())
	if why == "" {
		why = err.Error()
	}
	switch cmd.ProcessState.ExitCode() {
	case launch.ProbeSysFailed:
		sysfs = ProbeItem{Detail: "mount sysfs in a new network namespace: " + why + "; --sys host works instead"}
	default:
		procfs = ProbeItem{Detail: "mount proc in a new PID namespace: " + why + "; --proc host works instead (partial)"}
		sysfs = ProbeItem{Detail: "not tried: no procfs"}
	}
	return userns, procfs, sysfs
}

// probeItem is the probe's answer for a mechanism that says what is
// missing with err.
func probeItem(err error, ok string) ProbeItem {
	if err != nil {
		return ProbeItem{Detail: err.Error()}
	}
	return ProbeItem{OK: true, Detail: ok}
}

func probeCgroup2() (ProbeItem, string) {
	mnt, dir, err := cgroup.ProbeV2()
	return probeItem(err, "memory, pids and cpu controllers under "+dir), mnt
}
