package procfs

import (
	"os"
	"testing"
)

func TestStatus(t *testing.T) {
	st := ParseStatus("Name:\tsh\nUmask:\t0022\nTgid:\t42\nPPid:\t7\nNSpid:\t42\t3\t1\nTracerPid:\t0\nbad line\n")
	for _, c := range []struct {
		field string
		last  bool
		want  int
		ok    bool
	}{{"Tgid", false, 42, true}, {"NSpid", true, 1, true}, {"NSpid", false, 42, true}, {"PPid", false, 7, true},
		{"TracerPid", false, 0, true}, {"Name", false, 0, false}, {"Missing", false, 0, false}} {
		if n, ok := st.Int(c.field, c.last); n != c.want || ok != c.ok {
			t.Errorf("Int(%s, %v) = %d %v, want %d %v", c.field, c.last, n, ok, c.want, c.ok)
		}
	}
	if st["Umask"][0] != "0022" {
		t.Errorf("Umask %v", st["Umask"])
	}
	self, err := ReadStatus(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := self.Int("Tgid", false); !ok || n != os.Getpid() {
		t.Errorf("own Tgid %d %v", n, ok)
	}
}

// PPid and the innermost NSpid, as the library finds the payload's
// process by them.
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
		st := ParseStatus(tc.status)
		ppid, _ := st.Int("PPid", false)
		nspid, _ := st.Int("NSpid", true)
		if ppid != tc.ppid || nspid != tc.nspid {
			t.Errorf("%q: %d %d, want %d %d", tc.status, ppid, nspid, tc.ppid, tc.nspid)
		}
	}
}
