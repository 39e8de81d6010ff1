package cgroup

import (
	"testing"

	"github.com/nsrun/nsrun/internal/paths"
)

// ProbeV2 names the mount V2Mount finds, and a directory below it.
func TestProbeV2(t *testing.T) {
	mnt, dir, err := ProbeV2()
	t.Logf("mount %q, dir %q, err %v", mnt, dir, err)
	want, merr := V2Mount()
	switch {
	case merr != nil:
		if mnt != "" || err == nil {
			t.Errorf("no cgroup v2 mount (%v), yet ProbeV2 says %q, %v", merr, mnt, err)
		}
	case mnt != want:
		t.Errorf("mount %q, V2Mount says %q", mnt, want)
	case dir != "" && !paths.Within(dir, mnt):
		t.Errorf("dir %q is not below the mount %q", dir, mnt)
	case err == nil && dir == "":
		t.Error("no error and no directory")
	}
}
