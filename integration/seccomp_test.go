//go:build linux

package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// sysc runs the raw-syscall helper in a sandbox and returns its answer and
// nsrun's exit status.
func sysc(t *testing.T, opts []string, args ...string) (string, int) {
	t.Helper()
	r := run(t, "/", append(append(append([]string{}, opts...), "--", syscBin), args...)...)
	return r.stdout, r.code
}

func raw(nr uintptr, args ...uint64) []string {
	out := []string{"raw", fmt.Sprint(nr)}
	for _, a := range args {
		out = append(out, fmt.Sprintf("%#x", a))
	}
	return out
}

// Every call the default filter denies returns exactly the documented
// errno; with --seccomp off the same calls get past the filter.
func TestDefaultFilterDeniesEachCall(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the syscall numbers below are amd64's")
	}
	const (
		tiocsti   = 0x5412
		tioclinux = 0x541C
	)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"getpid", raw(unix.SYS_GETPID), "ok"},
		{"keyctl", raw(unix.SYS_KEYCTL, 0), "EPERM"},
		{"add_key", raw(unix.SYS_ADD_KEY), "EPERM"},
		{"request_key", raw(unix.SYS_REQUEST_KEY), "EPERM"},
		{"bpf", raw(unix.SYS_BPF, 0), "EPERM"},
		{"perf_event_open", raw(unix.SYS_PERF_EVENT_OPEN), "EPERM"},
		{"userfaultfd", raw(unix.SYS_USERFAULTFD), "EPERM"},
		{"io_uring_setup", raw(unix.SYS_IO_URING_SETUP, 8, 0), "EPERM"},
		{"init_module", raw(unix.SYS_INIT_MODULE), "EPERM"},
		{"kexec_load", raw(unix.SYS_KEXEC_LOAD), "EPERM"},
		{"mount", raw(unix.SYS_MOUNT), "EPERM"},
		{"umount2", raw(unix.SYS_UMOUNT2), "EPERM"},
		{"pivot_root", raw(unix.SYS_PIVOT_ROOT), "EPERM"},
		{"chroot", raw(unix.SYS_CHROOT), "EPERM"},
		{"fsopen", raw(unix.SYS_FSOPEN), "ENOSYS"},
		{"open_tree", raw(unix.SYS_OPEN_TREE), "ENOSYS"},
		{"mount_setattr", raw(unix.SYS_MOUNT_SETATTR), "ENOSYS"},
		{"clone3", raw(unix.SYS_CLONE3), "ENOSYS"},
		{"unshare user", raw(unix.SYS_UNSHARE, unix.CLONE_NEWUSER), "EPERM"},
		{"unshare net, high bits", raw(unix.SYS_UNSHARE, unix.CLONE_NEWNET|1<<40), "EPERM"},
		{"clone user", raw(unix.SYS_CLONE, unix.CLONE_NEWUSER|uint64(unix.SIGCHLD)), "EPERM"},
		{"setns", raw(unix.SYS_SETNS, 0, 0), "EPERM"},
		{"open_by_handle_at", raw(unix.SYS_OPEN_BY_HANDLE_AT), "EPERM"},
		{"settimeofday", raw(unix.SYS_SETTIMEOFDAY), "EPERM"},
		{"clock_settime", raw(unix.SYS_CLOCK_SETTIME), "EPERM"},
		{"reboot", raw(unix.SYS_REBOOT), "EPERM"},
		{"swapon", raw(unix.SYS_SWAPON), "EPERM"},
		{"acct", raw(unix.SYS_ACCT), "EPERM"},
		{"syslog", raw(unix.SYS_SYSLOG), "EPERM"},
		{"vhangup", raw(unix.SYS_VHANGUP), "EPERM"},
		{"iopl", raw(unix.SYS_IOPL, 3), "EPERM"},
		{"ioperm", raw(unix.SYS_IOPERM), "EPERM"},
		{"mbind", raw(unix.SYS_MBIND), "EPERM"},
		{"set_mempolicy", raw(unix.SYS_SET_MEMPOLICY), "EPERM"},
		{"modify_ldt", raw(unix.SYS_MODIFY_LDT), "EPERM"},
		{"personality no-randomize", raw(unix.SYS_PERSONALITY, 0x0040000), "EPERM"},
		{"personality query", raw(unix.SYS_PERSONALITY, 0xffffffff), "ok"},
		{"ioctl TIOCSTI", raw(unix.SYS_IOCTL, 0, tiocsti), "EPERM"},
		{"ioctl TIOCSTI, high bits", raw(unix.SYS_IOCTL, 0, tiocsti|1<<32), "EPERM"},
		{"ioctl TIOCLINUX", raw(unix.SYS_IOCTL, 0, tioclinux), "EPERM"},
		{"socket inet", raw(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM), "ok"},
		{"socket vsock", raw(unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM), "EAFNOSUPPORT"},
		{"socket 40|1<<32", raw(unix.SYS_SOCKET, 40|1<<32, unix.SOCK_STREAM), "EAFNOSUPPORT"},
		{"socket packet", raw(unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_RAW), "EAFNOSUPPORT"},
		{"socketpair alg", raw(unix.SYS_SOCKETPAIR, unix.AF_ALG, unix.SOCK_SEQPACKET), "EAFNOSUPPORT"},
	} {
		got, code := sysc(t, nil, tc.args...)
		if got != tc.want || code != 0 {
			t.Errorf("%s: %q (exit %d), want %q", tc.name, got, code, tc.want)
		}
	}
	// Without the filter the kernel answers for itself: these get past
	// (unless a container's own filter refuses them first).
	if os.Getenv("NSRUN_SHAPE") != "" {
		return
	}
	for _, args := range [][]string{raw(unix.SYS_KEYCTL, 0), raw(unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM)} {
		if got, _ := sysc(t, []string{"--seccomp", "off"}, args...); got == "EPERM" || got == "EAFNOSUPPORT" {
			t.Errorf("%v with --seccomp off: %s, the filter test proves nothing", args, got)
		}
	}
}

// A call through another ABI (x32, the i386 int 0x80 gate) is killed by
// the filter. What the sandbox owes depends on the host: where the call
// reaches the kernel's system-call entry outside (performed, or answered
// ENOSYS as x32 is by a kernel built without it), the filter sees it and
// must kill it with SIGSYS; where it never gets there (int 0x80 faults
// with SIGSEGV in any process when IA32 emulation is off), the call must
// still not succeed, and the test says that the filter's own answer could
// not be seen.
func TestOtherABIsAreKilled(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("x32 and int 0x80 are amd64's")
	}
	sigsys := 128 + int(unix.SIGSYS)
	for _, abi := range []string{"x32", "int80"} {
		host := callOutside(t, abi)
		got, code := sysc(t, nil, abi)
		switch {
		case host.served && code != sigsys:
			t.Errorf("%s: exit %d (%q), want %d (SIGSYS): the host serves this ABI", abi, code, got, sigsys)
		case !host.served && code != sigsys && code != host.code:
			t.Errorf("%s: exit %d (%q), want %d (SIGSYS) or %d as outside (the host has no such ABI: %s)", abi, code, got, sigsys, host.code, host.what)
		case !host.served && code == host.code:
			t.Logf("%s: the host has no such ABI (%s); inside the same (exit %d): the filter's answer cannot be seen here", abi, host.what, code)
		}
	}
}

// abiOutside is what a call through one ABI does outside any sandbox.
type abiOutside struct {
	served bool   // the call reached the system-call entry (and so the filter)
	code   int    // the exit status outside
	what   string // what happened, for messages
}

func callOutside(t *testing.T, abi string) abiOutside {
	t.Helper()
	out, err := exec.Command(syscBin, abi).Output()
	got := strings.TrimSpace(string(out))
	var ee *exec.ExitError
	switch {
	case err == nil:
		return abiOutside{served: true, what: "returned " + got}
	case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled():
		sig := ee.ProcessState.Sys().(syscall.WaitStatus).Signal()
		return abiOutside{code: 128 + int(sig), what: "killed by " + unix.SignalName(sig)}
	default:
		t.Fatalf("%s %s outside the sandbox: %v (%q)", syscBin, abi, err, got)
		return abiOutside{}
	}
}

func TestSeccompStatusAndRealPrograms(t *testing.T) {
	ws := workspace(t)
	r := run(t, ws, "--", "/bin/cat", "/proc/self/status")
	if !strings.Contains(r.stdout, "Seccomp:\t2") || !strings.Contains(r.stdout, "NoNewPrivs:\t1") {
		t.Errorf("status: %v", r)
	}
	// A server on loopback inside the sandbox, reached with curl; python3.
	r = run(t, ws, "--rw", ws, "--", "/bin/bash", "-c",
		`python3 -m http.server --bind 127.0.0.1 8765 --directory `+ws+` >/dev/null 2>&1 & `+
			`echo hello > `+ws+`/index.txt; for i in $(seq 50); do curl -s http://127.0.0.1:8765/index.txt && break; sleep 0.1; done; kill %1`)
	if r.code != 0 || r.stdout != "hello" {
		t.Errorf("python3 server and curl: %v", r)
	}
}

func TestDockerDefaultProfileRunsRealPrograms(t *testing.T) {
	ws := workspace(t)
	profile := dockerProfile(t, ws)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--rw", ws, "--seccomp", profile, "--report", rep, "--", "/bin/bash", "-c",
		"git init -q repo && python3 -c 'print(6*7)' && /bin/cat /proc/self/status | grep -c 'Seccomp:.2'")
	if r.code != 0 || r.stdout != "42\n1" {
		t.Errorf("under Docker's profile: %v", r)
	}
	if got := readFile(t, rep); !strings.Contains(got, `"profile": "docker-default.json"`) {
		t.Errorf("report: %s", got)
	}
	// A profile nsrun cannot honour is refused whole.
	bad := filepath.Join(ws, "bad.json")
	writeFile(t, bad, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["no_such_call"], "action": "SCMP_ACT_ERRNO"}]}`)
	r = run(t, ws, "--seccomp", bad, "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--seccomp "+bad) || !strings.Contains(r.stderr, "no_such_call") {
		t.Errorf("bad profile: %v", r)
	}
	r = run(t, ws, "--seccomp", filepath.Join(ws, "missing.json"), "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "missing.json") {
		t.Errorf("missing profile: %v", r)
	}
}

// A sandbox in a sandbox: refused without --allow-userns, working with it
// (and --landlock off: Landlock forbids mounting, even in a namespace of
// one's own). A host root caller cannot nest: mapping host uid 0 into a
// user namespace takes CAP_SETFCAP, and its /proc must stay covered.
func TestNestedSandbox(t *testing.T) {
	need(t)
	nested := []string{"--", nsrunBin, "--", "/bin/sh", "-c", "echo nested; grep NoNewPrivs /proc/self/status"}
	r := run(t, "/", append([]string{"--landlock", "off", "--allow-userns"}, nested...)...)
	if os.Getuid() == 0 {
		if r.code != 125 {
			t.Errorf("nested as host root: want a clean exit 125, got %v", r)
		}
	} else if r.code != 0 || r.stdout != "nested\nNoNewPrivs:\t1" {
		t.Errorf("nested with --allow-userns: %v", r)
	}
	r = run(t, "/", append([]string{"--landlock", "off"}, nested...)...)
	if r.code != 125 || !strings.Contains(r.stderr, "operation not permitted") {
		t.Errorf("nested without --allow-userns: want exit 125 and EPERM, got %v", r)
	}
	r = run(t, "/", "--allow-userns", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "--landlock off") {
		t.Errorf("--allow-userns under Landlock: %v", r)
	}
	// The payload cannot undo the filter from a namespace of its own.
	r = run(t, "/", "--", "/usr/bin/unshare", "-Ur", "true")
	if r.code == 0 {
		t.Errorf("unshare -Ur inside the sandbox worked: %v", r)
	}
}

func TestStrictPassesWhenEverythingIsEnforced(t *testing.T) {
	if hostABI(t) < 6 {
		t.Skip("this kernel's Landlock cannot enforce the default request")
	}
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--strict", "--rw", ws, "--report", rep, "--", "/bin/true")
	if got := readReport(t, rep); r.code != 0 || got.Enforcement != "full" {
		t.Errorf("--strict on a fully enforced sandbox: %v %+v", r, got)
	}
	r = run(t, ws, "--strict", "--seccomp", "off", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "seccomp: off") {
		t.Errorf("--strict with --seccomp off: %v", r)
	}
}

func TestBinaryIsStatic(t *testing.T) {
	need(t)
	out, _ := exec.Command("ldd", nsrunBin).CombinedOutput()
	if !strings.Contains(string(out), "not a dynamic executable") {
		t.Errorf("ldd %s: %s", nsrunBin, out)
	}
}

// A sandbox that cannot make user namespaces (here: nested, under the
// outer filter) says so in the same words whichever init it was to start:
// the raw init, the Go init chosen, or the Go init a plan the raw init
// does not build falls back to (that one said only the errno).
func TestNestedRefusalWordedAlike(t *testing.T) {
	need(t)
	// Outside /tmp, which the outer sandbox has of its own.
	layer, err := os.MkdirTemp("/var/tmp", "nested-layer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(layer) })
	if err := os.Chmod(layer, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"raw init", []string{"env", "NSRUN_INIT=raw", nsrunBin}},
		{"Go init", []string{"env", "NSRUN_INIT=go", nsrunBin}},
		{"Go init for an overlay", []string{"env", "NSRUN_INIT=raw", nsrunBin, "--overlay", layer}},
	} {
		r := run(t, "/", append(append([]string{"--landlock", "off", "--"}, c.args...), "--", "/bin/true")...)
		if r.code != 125 || !strings.HasPrefix(r.stderr, "nsrun: create namespaces and start the init: ") ||
			!strings.HasSuffix(r.stderr, "; where user namespaces are not allowed, --isolation landlock runs without them") {
			t.Errorf("%s: want exit 125 and the refusal worded with where it fails and what runs instead:\n%v", c.name, r)
		}
	}
}
