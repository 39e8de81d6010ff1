package nsrun

import (
	"path/filepath"
	"testing"
)

// TestEffectAgreesWithTheSandboxHome: the home the sandbox makes for a
// persistent home without HomeDir is the one Effect shows writable.
func TestEffectAgreesWithTheSandboxHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "none"))
	p := &Policy{Home: HomePersistent}
	hs, err := (&Cmd{}).setupHome(p, "/")
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Effect()
	if err != nil {
		t.Fatal(err)
	}
	x := e.Explain(filepath.Join(hs.dir, "f"))
	if x.Access != ReadWrite || x.Rule == nil || x.Rule.Path != hs.dir {
		t.Errorf("the sandbox's home is %s; Effect says %+v (rule %+v)", hs.dir, x, x.Rule)
	}
}
