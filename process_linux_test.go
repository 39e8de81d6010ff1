package nsrun

import "testing"

func TestStatusIDs(t *testing.T) {
	for _, tc := range []struct {
		status      string
		ppid, nspid int
	}{
		{"Name:\tsh\nPPid:\t4242\nNSpid:\t4250\t2\n", 4242, 2},
		{"PPid:\t1\nNSpid:\t77\n", 1, 77},
		{"PPid:\t10\nNSpid:\t900\t40\t3\nNSpgid:\t1\t1\t1\n", 10, 3},
		{"Name:\tx\n", 0, 0},
		{"PPid:\t\nNSpid:\n", 0, 0},
	} {
		ppid, nspid := statusIDs(tc.status)
		if ppid != tc.ppid || nspid != tc.nspid {
			t.Errorf("%q: %d %d, want %d %d", tc.status, ppid, nspid, tc.ppid, tc.nspid)
		}
	}
}
