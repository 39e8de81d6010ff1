package main

import (
	"os"
	"strings"
	"testing"

	"github.com/nsrun/nsrun"
)

func TestMain(m *testing.M) {
	// The sandbox's init is this test binary started again.
	if code, ran := nsrun.Init(); ran {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestRefusalsInTwoWordings: a policy the planner refuses reads in the
// library's settings from Error, and in the command's flags, exactly as
// the command has always said it, from describe.
func TestRefusalsInTwoWordings(t *testing.T) {
	for _, c := range []struct {
		p        nsrun.Policy
		lib, cli string
	}{
		{nsrun.Policy{Isolation: nsrun.IsolationLandlock, Landlock: nsrun.LandlockOff},
			"Policy.Isolation = IsolationLandlock with Policy.Landlock = LandlockOff would leave nothing enforced",
			"--isolation landlock with --landlock off would leave nothing enforced"},
		{nsrun.Policy{AllowUserns: true},
			"Policy.AllowUserns: namespaces inside are of no use under Landlock, which forbids mounting in them; add Policy.Landlock = LandlockOff",
			"--allow-userns: namespaces inside are of no use under Landlock, which forbids mounting in them; add --landlock off"},
		{nsrun.Policy{Proc: nsrun.ProcHost, Landlock: nsrun.LandlockOff},
			"Policy.Proc = ProcHost needs Landlock, which keeps the payload out of other processes' /proc entries (environment, descriptors, memory, root); it is off",
			"--proc host needs Landlock, which keeps the payload out of other processes' /proc entries (environment, descriptors, memory, root); it is off"},
		{nsrun.Policy{AllowHostUnixSockets: true},
			"Policy.AllowHostUnixSockets is for Policy.Isolation = IsolationLandlock: with namespaces, the host's unix sockets are out of reach through the private /run and Policy.Rules Deny",
			"--allow-host-unix-sockets is for --isolation landlock: with namespaces, the host's unix sockets are out of reach through the private /run and --deny"},
	} {
		p := c.p
		err := nsrun.Command(&p, "/bin/true").Run()
		if err == nil {
			t.Errorf("%+v ran", c.p)
			continue
		}
		if got := err.Error(); got != c.lib || strings.Contains(got, "--") {
			t.Errorf("Error() = %q, want %q", got, c.lib)
		}
		if got := describe(err); got != c.cli {
			t.Errorf("describe = %q, want %q", got, c.cli)
		}
	}
}
