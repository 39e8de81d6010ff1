package nsrun

import (
	"path/filepath"
	"testing"

	"github.com/nsrun/nsrun/internal/plan"
)

// TestEffectAgreesWithTheSandboxHome: the home the sandbox makes for a
// persistent home without HomeDir is the one Effect shows writable.
func TestEffectAgreesWithTheSandboxHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "none"))
	p := &Policy{Home: HomePersistent}
	ids, _ := policyIDs(p)
	r, err := (&Cmd{}).request(p, ids, "/")
	if err != nil {
		t.Fatal(err)
	}
	h, err := plan.MakeHome(r.HomeMade)
	if err != nil {
		t.Fatal(err)
	}
	dir, _, _ := (&Cmd{}).homeRules(h)
	e, err := p.Effect()
	if err != nil {
		t.Fatal(err)
	}
	x := e.Explain(filepath.Join(dir, "f"))
	if x.Access != ReadWrite || x.Rule == nil || x.Rule.Path != dir {
		t.Errorf("the sandbox's home is %s; Effect says %+v (rule %+v)", dir, x, x.Rule)
	}
}
