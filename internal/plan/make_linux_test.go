package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
)

func TestEnforcementAndStrict(t *testing.T) {
	all := NamespaceReport{User: true, Mount: true, PID: true, IPC: true, UTS: true, Net: true, Cgroup: true}
	hostNet := all
	hostNet.Net = false
	for _, tc := range []struct {
		r            Report
		landlockOnly bool
		want         string
		missing      []string
		hostNet      bool
	}{
		{Report{Namespaces: hostNet, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, false, "full", nil, true},
		{Report{Namespaces: hostNet, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, false, "partial", nil, false},
		{Report{Namespaces: all, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, false, "full", nil, false},
		{Report{Namespaces: all, Landlock: LandlockReport{Status: "partial", Dropped: []string{"ioctl_dev"}}, Seccomp: SeccompReport{Status: "full"}}, false, "partial", []string{"landlock: ioctl_dev"}, false},
		{Report{Namespaces: all, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "off", Reason: "r"}}, false, "partial", []string{"seccomp: off"}, false},
		{Report{Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, true, "partial", []string{"namespaces"}, false},
		{Report{Landlock: LandlockReport{Status: "none"}, Seccomp: SeccompReport{Status: "off"}}, true, "none", []string{"namespaces", "landlock: none"}, false},
	} {
		if got := enforcement(&tc.r, tc.hostNet); got != tc.want {
			t.Errorf("%+v: enforcement %s, want %s", tc.r, got, tc.want)
		}
		err := strictError(&tc.r, tc.landlockOnly)
		if (err == nil) != (tc.missing == nil) {
			t.Errorf("%+v: strict error %v", tc.r, err)
		}
		for _, m := range tc.missing {
			if err == nil || !strings.Contains(err.Error(), m) {
				t.Errorf("strict error %v lacks %q", err, m)
			}
		}
		// The library's words: settings, not the command's flags.
		if err != nil && (!strings.HasPrefix(err.Error(), "Policy.Strict: not fully enforced: ") || strings.Contains(err.Error(), "--")) {
			t.Errorf("strict error %q names a flag", err)
		}
	}
}

// A Landlock-only sandbox's filtered network stands on Landlock's TCP
// rules and seccomp: without either it is refused, not run open.
func TestLandlockProxyNeedsItsLayers(t *testing.T) {
	var pe *Error
	err := AddTCPOnly(&Layers{Landlock: &landlock.Ruleset{}, LandlockReport: LandlockReport{ABI: 3}}, false)
	if !errors.As(err, &pe) || pe.Kind != KindNet || !strings.Contains(err.Error(), "ABI 4") {
		t.Errorf("without TCP rules: %v", err)
	}
	tcp := &landlock.Ruleset{Handled: landlock.Request{Net: landlock.ConnectTCP | landlock.BindTCP}}
	if err := AddTCPOnly(&Layers{Landlock: tcp}, true); !errors.As(err, &pe) || pe.Kind != KindNet || !strings.Contains(err.Error(), "seccomp is off") {
		t.Errorf("without seccomp: %v", err)
	}
	l := &Layers{Landlock: tcp}
	if err := AddTCPOnly(l, false); err != nil || len(l.Seccomp) != 1 || l.SeccompReport.SyscallsBlocked != 4 {
		t.Errorf("%v: %d programs, %d calls", err, len(l.Seccomp), l.SeccompReport.SyscallsBlocked)
	}
	bind := []launch.PortRange{{Proto: "tcp", First: 80, Last: 80}}
	lr := proxyOnly(LayerRequest{Connect: []launch.PortRange{{Proto: "tcp", First: 1, Last: 9}}, Bind: bind}, 4000)
	if len(lr.Connect) != 1 || lr.Connect[0] != (launch.PortRange{Proto: "tcp", First: 4000, Last: 4000}) || len(lr.Bind) != 1 {
		t.Errorf("the proxy's layers %+v", lr)
	}
}
