package sandbox

import (
	"errors"
	"testing"

	"github.com/nsrun/nsrun/internal/absent"
)

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
