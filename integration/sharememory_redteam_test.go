//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The payload's tries at the memory of a pid 1 that shares nsrun's
// (NSRUN_SHARE_MEMORY=1), by the calls that name a process by its pid and
// need no /proc (which hides pid 1: TestSharedMemory). Pid 1 keeps
// CAP_AUDIT_READ, which the payload lacks: the kernel's check of each
// wants the caller's capabilities to cover pid 1's, or CAP_SYS_PTRACE
// (CAP_SYS_NICE for the scheduling ones). Without that capability each
// of these would reach nsrun's memory (ptrace, process_vm_*), its
// descriptors (pidfd_getfd, kcmp) or its pages (process_madvise,
// migrate_pages, move_pages), the payload having pid 1's user ids.

// pid1Reach is what sysc reach 1 says when nothing reaches pid 1: a
// pidfd opens (it needs no permission), but nothing goes through it, and
// pid 1 (not dying) cannot be reaped early; its core limit is 0, soft
// and hard, from its first step, and the payload cannot raise it.
const pid1Reach = `ptrace_seize: EPERM
ptrace_attach: EPERM
process_vm_readv: EPERM
process_vm_writev: EPERM
pidfd_open: ok
pidfd_getfd: EPERM
process_madvise: EACCES
process_mrelease: EINVAL
kcmp: EPERM
get_robust_list: EPERM
migrate_pages: EPERM
move_pages: EPERM
perf_event_open: EPERM
prlimit_core_raise: EPERM
core: 0 0
`

func needShared(t *testing.T) {
	t.Helper()
	need(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("shared memory is amd64's")
	}
}

// TestSharedMemoryPid1Reach: sysc reach 1 in a sandbox whose pid 1 shares
// nsrun's memory, with the default seccomp filter and with none.
func TestSharedMemoryPid1Reach(t *testing.T) {
	needShared(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	for _, extra := range [][]string{nil, {"--seccomp", "off", "--landlock", "off"}} {
		args := append(append([]string{"-v"}, extra...), "--rw", ws, "--", syscBin, "reach", "1", "settled")
		r := runBase(t, ws, base, []string{"NSRUN_SHARE_MEMORY=1"}, args...)
		if !strings.Contains(r.stderr, ", sharing this process's memory") {
			t.Fatalf("%v: -v should say the init shares nsrun's memory:\n%v", extra, r)
		}
		if r.code != 0 || madviseRefused(r.stdout) != strings.TrimSpace(pid1Reach) {
			t.Errorf("%v: want exit 0 and\n%s%v", extra, pid1Reach, r)
		}
	}
}

// TestSharedMemoryPid1FromUserNamespace: a payload allowed namespaces
// (--allow-userns) has every capability in one of its own, but none in
// pid 1's, its parent: it reaches pid 1 no better, cannot mount a procfs
// of the sandbox's PID namespace (whose user namespace is pid 1's), and
// one of a PID namespace of its own shows none of the sandbox's
// processes.
func TestSharedMemoryPid1FromUserNamespace(t *testing.T) {
	needShared(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	if os.Getuid() == 0 {
		// Root's sandbox maps uid 0 alone, and a payload with no
		// capability cannot map it again in a user namespace of its own
		// (unshare -Ur: "write failed /proc/self/uid_map").
		t.Skip("root's payload cannot map a user namespace of its own")
	}
	ws := workspace(t)
	probe := strings.Join([]string{
		`unshare -Ur sh -c "grep CapEff /proc/self/status; ` + syscBin + ` reach 1 settled; ls /proc/1 >/dev/null 2>&1 && echo proc1: seen || echo proc1: hidden"`,
		`unshare -Urm sh -c "mount -t proc proc /tmp 2>/dev/null && echo mounted || echo mount: refused"`,
		`unshare -Urmpf --mount-proc sh -c "echo pid 1 there: \$(cat /proc/1/comm)"`,
	}, "; ")
	r := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"},
		"-v", "--allow-userns", "--landlock", "off", "--rw", ws, "--", "/bin/sh", "-c", probe)
	if !strings.Contains(r.stderr, ", sharing this process's memory") {
		t.Fatalf("-v should say the init shares nsrun's memory:\n%v", r)
	}
	// Every capability of its own user namespace; the new PID
	// namespace's pid 1 is its shell.
	want := "CapEff:\t000001ffffffffff\n" + pid1Reach + "proc1: hidden\nmount: refused\npid 1 there: sh"
	if r.code != 0 || madviseRefused(r.stdout) != want {
		t.Errorf("want exit 0 and\n%s%v", want, r)
	}
}

// madviseRefused words a refused process_madvise as the kernel does: a
// container's own seccomp profile may refuse it (EPERM) before the kernel
// (EACCES); both are refusals.
func madviseRefused(out string) string {
	return strings.Replace(out, "process_madvise: EPERM", "process_madvise: EACCES", 1)
}

// TestSharedMemoryPid1Signals: every signal, by kill, rt_sigqueueinfo and
// pidfd_send_signal, to a pid 1 that shares nsrun's memory. Pid 1 of a
// PID namespace gets from inside it only the signals it handles, and
// this one handles none (it forwards some to the payload, which ignores
// them all): no signal stops it, kills it, or makes it dump nsrun's
// memory; the payload's exit status is nsrun's.
func TestSharedMemoryPid1Signals(t *testing.T) {
	needShared(t)
	ws := workspace(t)
	r := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"}, "--rw", ws, "--", syscBin, "signals", "1")
	if r.code != 0 || r.stdout != "alive" {
		t.Errorf("want exit 0 and pid 1 alive:\n%v", r)
	}
	assertNoCore(t, ws)
}

// TestSharedMemoryPid1Limits: the payload, pid 1's user, may lower pid
// 1's limits (nsrun's are its own, a process's limits being no part of
// its memory); pid 1 serves the sandbox to its end all the same. Its nice
// value, affinity, I/O priority and policy are refused (the kernel's
// check wants pid 1's capabilities covered, or CAP_SYS_NICE).
func TestSharedMemoryPid1Limits(t *testing.T) {
	needShared(t)
	ws := workspace(t)
	r := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"}, "--rw", ws, "--", syscBin, "limits", "1")
	want := "setpriority: EPERM\nsched_setaffinity: EPERM\nioprio_set: EPERM\nsched_setscheduler: EPERM\nalive"
	if r.code != 0 || r.stdout != want {
		t.Errorf("want exit 0 and\n%s%v", want, r)
	}
	assertNoCore(t, ws)
}

// assertNoCore fails if a core file is in the sandbox's working directory.
func assertNoCore(t *testing.T, ws string) {
	t.Helper()
	out, _ := exec.Command("find", ws, "-name", "core*").Output()
	if len(out) > 0 {
		t.Errorf("a core file in the sandbox's directory:\n%s", out)
	}
}

// TestSharedMemoryFileCapabilities: root's payload (uid 0, which a file's
// capabilities are for) executing a binary that carries CAP_SYS_PTRACE
// and CAP_AUDIT_READ, pid 1's, gets neither: the bounding set is empty,
// and no_new_privs is set. Either would let it trace pid 1.
func TestSharedMemoryFileCapabilities(t *testing.T) {
	needShared(t)
	setcap, err := exec.LookPath("setcap")
	if err != nil {
		setcap, err = exec.LookPath("/usr/sbin/setcap") // root's PATH only
	}
	if os.Getuid() != 0 || err != nil {
		t.Skip("needs root and setcap(8)")
	}
	ws := workspace(t)
	grep := ws + "/grep"
	if out, err := exec.Command("cp", "/bin/grep", grep).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if out, err := exec.Command(setcap, "cap_audit_read,cap_sys_ptrace+eip", grep).CombinedOutput(); err != nil {
		t.Skipf("setcap: %v\n%s", err, out)
	}
	r := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"}, "--rw", ws, "--", grep, "^Cap", "/proc/self/status")
	want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000"
	if r.code != 0 || r.stdout != want {
		t.Errorf("want exit 0 and\n%s\n%v", want, r)
	}
}

// TestSharedMemoryLandlockOnly: --isolation landlock has no init to share
// nsrun's memory: NSRUN_SHARE_MEMORY=1 changes nothing there. The
// payload's parent is the stage, a program of its own, whose memory,
// descriptors and signals the payload cannot reach (Landlock keeps a
// domain's processes from tracing or signalling those outside it).
func TestSharedMemoryLandlockOnly(t *testing.T) {
	needShared(t)
	ws := workspace(t)
	probe := `tr '\0' ' ' </proc/$PPID/cmdline; echo; ` + syscBin + ` reach $PPID | grep -c -e EPERM -e EACCES; kill -0 $PPID 2>/dev/null && echo signalled || echo not signalled`
	r := runBase(t, ws, noShims(workspace(t)), []string{"NSRUN_SHARE_MEMORY=1"},
		"-v", "--isolation", "landlock", "--rw", ws, "--ro", filepath.Dir(syscBin), "--", "/bin/sh", "-c", probe)
	if r.code == 125 && strings.Contains(r.stderr, "Landlock") {
		t.Skipf("no Landlock here: %s", r.stderr)
	}
	if strings.Contains(r.stderr, "sharing this process's memory") {
		t.Errorf("-v says an init shares nsrun's memory under --isolation landlock:\n%v", r)
	}
	// Each of sysc reach's calls but pidfd_open and process_mrelease
	// is refused.
	want := "nsrun-landlock \n12\nnot signalled"
	if r.code != 0 || r.stdout != want {
		t.Errorf("want exit 0 and\n%s\n%v", want, r)
	}
}
