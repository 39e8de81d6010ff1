package nsrun

import (
	"strings"
	"testing"
)

func TestEnforcementAndStrict(t *testing.T) {
	all := NamespaceReport{User: true, Mount: true, PID: true, IPC: true, UTS: true, Net: true, Cgroup: true}
	hostNet := all
	hostNet.Net = false
	for _, tc := range []struct {
		r       Report
		iso     Isolation
		want    string
		missing []string
		hostNet bool
	}{
		{Report{Namespaces: hostNet, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, IsolationFull, "full", nil, true},
		{Report{Namespaces: hostNet, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, IsolationFull, "partial", nil, false},
		{Report{Namespaces: all, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, IsolationFull, "full", nil, false},
		{Report{Namespaces: all, Landlock: LandlockReport{Status: "partial", Dropped: []string{"ioctl_dev"}}, Seccomp: SeccompReport{Status: "full"}}, IsolationFull, "partial", []string{"landlock: ioctl_dev"}, false},
		{Report{Namespaces: all, Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "off", Reason: "r"}}, IsolationFull, "partial", []string{"seccomp: off"}, false},
		{Report{Landlock: LandlockReport{Status: "full"}, Seccomp: SeccompReport{Status: "full"}}, IsolationLandlock, "partial", []string{"namespaces"}, false},
		{Report{Landlock: LandlockReport{Status: "none"}, Seccomp: SeccompReport{Status: "off"}}, IsolationLandlock, "none", []string{"namespaces", "landlock: none"}, false},
	} {
		if got := enforcement(&tc.r, tc.hostNet); got != tc.want {
			t.Errorf("%+v: enforcement %s, want %s", tc.r, got, tc.want)
		}
		err := strictError(&tc.r, tc.iso)
		if (err == nil) != (tc.missing == nil) {
			t.Errorf("%+v: strict error %v", tc.r, err)
		}
		for _, m := range tc.missing {
			if err == nil || !strings.Contains(err.Error(), m) {
				t.Errorf("strict error %v lacks %q", err, m)
			}
		}
	}
}
