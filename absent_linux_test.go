package nsrun

import (
	"testing"

	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/gitguard"
)

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
