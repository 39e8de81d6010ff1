//go:build linux && amd64

package seccomp

import (
	"encoding/json"
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
