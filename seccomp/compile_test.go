package seccomp

import (
	"strings"
	"testing"
)

// Conditional rules with different actions that can hold together mean
// whatever libseccomp's merging of them makes of it: they are refused,
// never compiled one way or the other.
func TestCompileRefusesAmbiguousProfiles(t *testing.T) {
	eperm := Action{Kind: ActErrno, Errno: 1}
	for _, tc := range []struct {
		name  string
		rules []Rule
		want  string
	}{
		{"two conditions on one argument", []Rule{{Names: []string{"socket"}, Action: eperm,
			Args: []Arg{{Index: 0, Op: OpEQ, Value: 40}, {Index: 0, Op: OpEQ, Value: 17}}}}, "two conditions on argument 0"},
		{"overlapping ranges, different actions", []Rule{
			{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpLE, Value: 5}}},
			{Names: []string{"ioctl"}, Action: Action{Kind: ActTrap}, Args: []Arg{{Index: 1, Op: OpGE, Value: 5}}}}, "can hold together"},
		{"conditions on different arguments", []Rule{
			{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 0, Op: OpEQ, Value: 1}}},
			{Names: []string{"ioctl"}, Action: Action{Kind: ActTrap}, Args: []Arg{{Index: 1, Op: OpEQ, Value: 2}}}}, "can hold together"},
		{"a mask against a range (not decided)", []Rule{
			{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xff, ValueTwo: 0x10}}},
			{Names: []string{"ioctl"}, Action: Action{Kind: ActTrap}, Args: []Arg{{Index: 1, Op: OpGT, Value: 0x1000}}}}, "can hold together"},
	} {
		_, err := compileFor(Profile{Name: "p", DefaultAction: Action{Kind: ActAllow}, Rules: tc.rules}, "amd64")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// resolutionProfile has several rules for one call, of the kinds
// podman's profile has; the libseccomp tests compare it too.
func resolutionProfile() Profile {
	eperm, einval := Action{Kind: ActErrno, Errno: 1}, Action{Kind: ActErrno, Errno: 22}
	allow, enosys := Action{Kind: ActAllow}, Action{Kind: ActErrno, Errno: 38}
	return Profile{Name: "resolution", DefaultAction: enosys, Rules: []Rule{
		// podman's setns: allowed in its big list, then refused to a
		// payload without CAP_SYS_ADMIN.
		{Names: []string{"setns"}, Action: allow},
		{Names: []string{"setns"}, Action: eperm},
		{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpEQ, Value: 1}}},
		{Names: []string{"ioctl"}, Action: allow},
		{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpEQ, Value: 2}}},
		// podman's socket: EINVAL for the audit netlink socket, allowed
		// otherwise.
		{Names: []string{"socket"}, Action: einval, Args: []Arg{{Index: 0, Op: OpEQ, Value: 16}, {Index: 2, Op: OpEQ, Value: 9}}},
		{Names: []string{"socket"}, Action: allow, Args: []Arg{{Index: 2, Op: OpNE, Value: 9}}},
		{Names: []string{"socket"}, Action: allow, Args: []Arg{{Index: 0, Op: OpNE, Value: 16}}},
		{Names: []string{"fcntl"}, Action: allow, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xf0, ValueTwo: 0x10}}},
		{Names: []string{"fcntl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xf0, ValueTwo: 0x20}}},
		{Names: []string{"fcntl"}, Action: einval, Args: []Arg{{Index: 1, Op: OpMaskedEq, Value: 0xff, ValueTwo: 0x33}}},
	}}
}

// Several rules for one call resolve as libseccomp resolves them for runc
// and crun: the first unconditional rule decides and the others are
// dropped (and listed); conditional rules with different actions that
// cannot hold together each decide where they hold.
func TestCompileResolvesRulesAsLibseccomp(t *testing.T) {
	eperm, einval := Action{Kind: ActErrno, Errno: 1}, Action{Kind: ActErrno, Errno: 22}
	allow, enosys := Action{Kind: ActAllow}, Action{Kind: ActErrno, Errno: 38}
	c, err := compileFor(resolutionProfile(), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if want := "setns: a rule with action errno 1 (the first unconditional rule decides)"; len(c.Dropped) != 3 || c.Dropped[len(c.Dropped)-1] != want {
		t.Errorf("dropped: %q, want three with %q last", c.Dropped, want)
	}
	ret := func(a Action) uint32 { v, _ := retValue(a); return v }
	nr := func(name string) uint32 { n, _ := syscallsAMD64.lookup(name); return n }
	for _, tc := range []struct {
		name string
		nr   uint32
		args [6]uint64
		want Action
	}{
		{"setns", nr("setns"), [6]uint64{}, allow},
		{"ioctl 1", nr("ioctl"), [6]uint64{0, 1}, allow},
		{"ioctl 2", nr("ioctl"), [6]uint64{0, 2}, allow},
		{"audit socket", nr("socket"), [6]uint64{16, 3, 9}, einval},
		{"other netlink socket", nr("socket"), [6]uint64{16, 3, 0}, allow},
		{"inet socket, protocol 9", nr("socket"), [6]uint64{2, 1, 9}, allow},
		{"fcntl 0x12", nr("fcntl"), [6]uint64{0, 0x12}, allow},
		{"fcntl 0x22", nr("fcntl"), [6]uint64{0, 0x22}, eperm},
		{"fcntl 0x33", nr("fcntl"), [6]uint64{0, 0x33}, einval},
		{"fcntl 0x44", nr("fcntl"), [6]uint64{0, 0x44}, enosys},
		{"read", nr("read"), [6]uint64{}, enosys},
	} {
		if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != ret(tc.want) {
			t.Errorf("%s: %#x, want %#x", tc.name, got, ret(tc.want))
		}
	}
}
