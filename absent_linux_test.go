package nsrun

import (
	"testing"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
)

func TestWayRoot(t *testing.T) {
	rw := map[string]bool{"/home/me/proj": true, "/home/me/proj/a": true, "/home/me/proj/a/b": true, "/srv": true, "/srv/x": true}
	writable := func(p string) bool { return rw[p] }
	for _, tc := range []struct{ dir, want string }{
		{"/home/me/proj/a/b", "/home/me/proj"},
		{"/home/me/proj", "/home/me/proj"},
		{"/srv/x", "/srv"},
		{"/elsewhere/.git", "/elsewhere/.git"},
	} {
		if got := wayRoot(tc.dir, writable); got != tc.want {
			t.Errorf("wayRoot(%s) = %s, want %s", tc.dir, got, tc.want)
		}
	}
}

// The watcher starts at the workspace a writable rule names: its parent is
// not the payload's.
func TestAbsentTargetsRoot(t *testing.T) {
	rules := []canonRule{{Rule: Rule{Path: "/ws", Access: ReadWrite}, Canon: "/ws", Dir: true},
		{Rule: Rule{Path: "/ws/.git/config", Access: ReadOnly}, Canon: "/ws/.git/config"}}
	got := absentTargets([]gitguard.Absent{{Dir: "/ws/tools", Name: "hooks", Why: "w"}, {Dir: "/ws/.git", Name: "commondir"}}, rules)
	if len(got) != 2 || got[0] != (absent.Target{Dir: "/ws/tools", Name: "hooks", Why: "w", Root: "/ws"}) || got[1].Root != "/ws" {
		t.Errorf("targets: %+v", got)
	}
}
