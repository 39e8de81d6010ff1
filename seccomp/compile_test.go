package seccomp

import (
	"strings"
	"testing"
)

// Profiles whose meaning depends on an order runtimes do not agree on are
// refused, never compiled one way or the other.
func TestCompileRefusesAmbiguousProfiles(t *testing.T) {
	eperm := Action{Kind: ActErrno, Errno: 1}
	for _, tc := range []struct {
		name  string
		rules []Rule
		want  string
	}{
		{"two conditions on one argument", []Rule{{Names: []string{"socket"}, Action: eperm,
			Args: []Arg{{Index: 0, Op: OpEQ, Value: 40}, {Index: 0, Op: OpEQ, Value: 17}}}}, "two conditions on argument 0"},
		{"unconditional and conditional, different actions", []Rule{
			{Names: []string{"ptrace"}, Action: Action{Kind: ActKillProcess}},
			{Names: []string{"ptrace"}, Action: Action{Kind: ActLog}, Args: []Arg{{Index: 0, Op: OpEQ}}}}, "different actions"},
		{"conditional, different actions", []Rule{
			{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpEQ, Value: 1}}},
			{Names: []string{"ioctl"}, Action: Action{Kind: ActTrap}, Args: []Arg{{Index: 1, Op: OpEQ, Value: 2}}}}, "different actions"},
		{"two unconditional, different actions", []Rule{
			{Names: []string{"read"}, Action: eperm}, {Names: []string{"read"}, Action: Action{Kind: ActTrap}}}, "different actions"},
	} {
		_, err := compileFor(Profile{Name: "p", DefaultAction: Action{Kind: ActAllow}, Rules: tc.rules}, "amd64")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// The same action twice, or a rule that repeats the default, is fine.
	if _, err := compileFor(Profile{Name: "p", DefaultAction: eperm, Rules: []Rule{
		{Names: []string{"ioctl"}, Action: eperm, Args: []Arg{{Index: 1, Op: OpEQ, Value: 1}}},
		{Names: []string{"ioctl"}, Action: Action{Kind: ActAllow}},
		{Names: []string{"read"}, Action: Action{Kind: ActAllow}, Args: []Arg{{Index: 0, Op: OpEQ}}},
		{Names: []string{"read"}, Action: Action{Kind: ActAllow}, Args: []Arg{{Index: 0, Op: OpEQ, Value: 1}}},
	}}, "amd64"); err != nil {
		t.Errorf("unambiguous profile: %v", err)
	}
}
