package nsrun

import (
	"errors"
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

func TestDescribeFound(t *testing.T) {
	tg := absent.Target{Dir: "/ws/tools", Name: "hooks", Why: "core.hookspath", Root: "/ws"}
	for _, tc := range []struct {
		f    absent.Found
		want string
	}{
		{absent.Found{Target: tg, At: "/ws/tools/hooks", Kind: "directory", Removed: true},
			"/ws/tools/hooks appeared (core.hookspath) and was removed"},
		{absent.Found{Target: tg, At: "/ws/tools/hooks", Kind: "directory", Err: errors.New("EBUSY")},
			"/ws/tools/hooks appeared (core.hookspath) and could not be removed: EBUSY; check it before running git there"},
		{absent.Found{Target: tg, Way: "/ws/tools", At: "/ws/tools/hooks", Kind: "directory", Removed: true},
			"/ws/tools, on the way to /ws/tools/hooks, was moved, removed or replaced (core.hookspath); the directory at /ws/tools/hooks was removed"},
		{absent.Found{Target: tg, Way: "/ws/tools", At: "/ws/tools", Kind: "symlink", Removed: true},
			"/ws/tools, on the way to /ws/tools/hooks, was moved, removed or replaced (core.hookspath); the symlink at /ws/tools was removed"},
		{absent.Found{Target: tg, Way: "/ws/tools"},
			"/ws/tools, on the way to /ws/tools/hooks, was moved, removed or replaced (core.hookspath)"},
		{absent.Found{Target: tg, Way: "/ws", Err: errors.New("open /ws: ENOENT")},
			"/ws, on the way to /ws/tools/hooks, was moved, removed or replaced (core.hookspath); it could not be looked at: open /ws: ENOENT; check /ws/tools/hooks before running git there"},
	} {
		if got := describeFound(tc.f); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
