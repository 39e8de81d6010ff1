//go:build linux && amd64

package seccomp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	docker "github.com/moby/profiles/seccomp"
	"golang.org/x/sys/unix"
)

func TestDockerDefaultProfileCompiles(t *testing.T) {
	b, err := json.Marshal(docker.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseOCI(b, "docker-default", amd64Host)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compileFor(p, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Skipped) > 0 {
		t.Errorf("Docker's profile names calls nsrun cannot: %v", c.Skipped)
	}
	for _, tc := range []struct {
		name string
		nr   uint32
		args [6]uint64
		want uint32
	}{
		{"read", unix.SYS_READ, [6]uint64{}, allow},
		{"clone for a thread", unix.SYS_CLONE, [6]uint64{0x3d0f00}, allow},
		{"clone a user namespace", unix.SYS_CLONE, [6]uint64{unix.CLONE_NEWUSER}, eperm1},
		{"clone3", unix.SYS_CLONE3, [6]uint64{}, retErrno | errENOSYS},
		{"keyctl", unix.SYS_KEYCTL, [6]uint64{}, eperm1},
		{"mount", unix.SYS_MOUNT, [6]uint64{}, eperm1},
	} {
		if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
	t.Logf("%d instructions, %d blocked, skipped %v", len(c.Program), c.Blocked, c.Skipped)
}

func TestCompileRefusesUnknownNamesInRestrictingRules(t *testing.T) {
	_, err := compileFor(Profile{Name: "p", DefaultAction: Action{Kind: ActAllow},
		Rules: []Rule{{Names: []string{"no_such_call"}, Action: Action{Kind: ActErrno, Errno: 1}}}}, "amd64")
	if err == nil || !strings.Contains(err.Error(), `"no_such_call"`) {
		t.Errorf("got %v", err)
	}
	c, err := compileFor(Profile{Name: "p", DefaultAction: Action{Kind: ActErrno, Errno: 1},
		Rules: []Rule{{Names: []string{"read", "no_such_call", "chown32"}, Action: Action{Kind: ActAllow}}}}, "amd64")
	if err != nil || len(c.Skipped) != 1 || c.Skipped[0] != "no_such_call" {
		t.Errorf("an unknown allowed call must be skipped (left denied), another architecture's ignored: %+v %v", c, err)
	}
	if _, err := compileFor(Profile{Name: "p", DefaultAction: Action{Kind: ActAllow},
		Rules: []Rule{{Names: []string{"iopl"}, Action: Action{Kind: ActErrno, Errno: 1}}}}, "arm64"); err != nil {
		t.Errorf("denying a call arm64 does not have: %v", err)
	}
}

// podman's and CRI-O's profile loads: its errno names agree with their
// numbers, and its calls with two rules resolve as libseccomp (and so runc
// and crun) resolve them for a payload without capabilities.
func TestPodmanProfileCompiles(t *testing.T) {
	b, err := os.ReadFile("../integration/testdata/containers-seccomp.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseOCI(b, "containers-seccomp.json", amd64Host)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compileFor(p, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction != (Action{Kind: ActErrno, Errno: errENOSYS}) {
		t.Errorf("default %+v, want errno ENOSYS", p.DefaultAction)
	}
	if len(c.Dropped) != 1 || !strings.HasPrefix(c.Dropped[0], "setns: ") {
		t.Errorf("dropped %q, want setns's errno rule only", c.Dropped)
	}
	enosys := uint32(retErrno | errENOSYS)
	for _, tc := range []struct {
		name string
		nr   uint32
		args [6]uint64
		want uint32
	}{
		{"read", unix.SYS_READ, [6]uint64{}, allow},
		{"setns (allowed first)", unix.SYS_SETNS, [6]uint64{}, allow},
		{"mount (the kernel refuses it without capabilities)", unix.SYS_MOUNT, [6]uint64{}, allow},
		{"bpf without CAP_SYS_ADMIN", unix.SYS_BPF, [6]uint64{}, eperm1},
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT, [6]uint64{}, eperm1},
		{"audit netlink socket", unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT}, retErrno | uint32(unix.EINVAL)},
		{"route netlink socket", unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE}, allow},
		{"personality query", unix.SYS_PERSONALITY, [6]uint64{0xffffffff}, allow},
		{"personality ADDR_NO_RANDOMIZE", unix.SYS_PERSONALITY, [6]uint64{0x0040000}, enosys},
		{"a call it does not list", unix.SYS_KEXEC_FILE_LOAD, [6]uint64{}, eperm1},
		{"no such call", 1000, [6]uint64{}, enosys},
	} {
		if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

func TestParseOCIErrnoNames(t *testing.T) {
	p, err := ParseOCI([]byte(`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrno": "ENOSYS",
		"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errno": "EACCES"},
		{"names": ["write"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "errno": "EPERM"}]}`), "p.json", amd64Host)
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction.Errno != uint16(unix.ENOSYS) || p.Rules[0].Action.Errno != uint16(unix.EACCES) || p.Rules[1].Action.Errno != 1 {
		t.Errorf("errnos: %+v", p)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1, "defaultErrno": "ENOSYS"}`, "defaultErrnoRet 1 and defaultErrno ENOSYS (38) disagree"},
		{`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrno": "EWHATEVER"}`, `defaultErrno "EWHATEVER": not a Linux errno name`},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13, "errno": "EPERM"}]}`, "syscalls[0] (read): errnoRet 13 and errno EPERM (1) disagree"},
	} {
		if _, err := ParseOCI([]byte(tc.json), "p.json", amd64Host); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.json, err, tc.want)
		}
	}
	// The table agrees with the system's names.
	for name, n := range errnoNumbers() {
		if unix.ErrnoName(unix.Errno(n)) != name && !map[string]bool{"EWOULDBLOCK": true, "EDEADLOCK": true, "ENOTSUP": true, "EOPNOTSUPP": true, "EUCLEAN": true}[name] {
			t.Errorf("%s is %d here, which the system calls %s", name, n, unix.ErrnoName(unix.Errno(n)))
		}
	}
	for n := 1; n <= 133; n++ {
		found := false
		for _, m := range errnoNumbers() {
			found = found || m == uint(n)
		}
		if !found && n != 41 && n != 58 {
			t.Errorf("errno %d (%s) has no name in the table", n, unix.ErrnoName(unix.Errno(n)))
		}
	}
}
