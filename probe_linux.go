package nsrun

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/moby/sys/userns"
	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/ns"
	"github.com/nsrun/nsrun/reexec"
)

const probeStage = "nsrun-probe"

// ProbeHost finds out what this host can enforce for the calling user. It
// creates one throwaway set of namespaces to be sure.
func ProbeHost() Probe {
	var p Probe
	p.UserNamespaces = probeUserns()
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
	p.Seccomp = probeSeccomp()
	p.CgroupV2, p.CgroupV2Path = probeCgroup2()
	p.Seatbelt = ProbeItem{Detail: "not on macOS"}
	return p
}

func probeUserns() ProbeItem {
	uid, gid := os.Getuid(), os.Getgid()
	uids, gids := ns.Maps(uid, uid, gid, gid)
	cmd := &exec.Cmd{Path: reexec.Self, Args: []string{probeStage}, Env: []string{},
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: ns.CloneFlags(false), UidMappings: uids, GidMappings: gids}}
	if err := cmd.Run(); err != nil {
		return ProbeItem{Detail: ns.Explain(fmt.Errorf("create user, mount, pid, ipc, uts, cgroup and net namespaces: %w", err), ns.ReadSettings(), uid).Error()}
	}
	return ProbeItem{OK: true, Detail: fmt.Sprintf("all namespaces can be created as uid %d", uid)}
}

func probeSeccomp() ProbeItem {
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return ProbeItem{Detail: "prctl PR_GET_SECCOMP: " + err.Error()}
	}
	b, err := os.ReadFile("/proc/sys/kernel/seccomp/actions_avail")
	if err != nil {
		return ProbeItem{Detail: "read actions_avail: " + err.Error()}
	}
	if !strings.Contains(string(b), "kill_process") {
		return ProbeItem{Detail: "the kernel lacks the kill_process action"}
	}
	return ProbeItem{OK: true, Detail: "filters available (nsrun loads only its MPTCP filter so far)"}
}

func probeCgroup2() (ProbeItem, string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ProbeItem{Detail: err.Error()}, ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(pre)
		if len(fields) < 5 {
			continue
		}
		mp := fields[4]
		if unix.Access(mp, unix.W_OK) != nil {
			return ProbeItem{Detail: mp + " is not writable by this user (limits need a delegated subtree)"}, mp
		}
		return ProbeItem{OK: true, Detail: mp + " is writable"}, mp
	}
	return ProbeItem{Detail: "no cgroup2 mount"}, ""
}
