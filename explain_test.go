package nsrun

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEffectShowsTheDefaultPersistentHome: a persistent home with no
// HomeDir is nsrun's own directory for the caller, writable in the
// sandbox; Effect (and so `nsrun policy explain` and the denial judge)
// must say so, before the directory exists and after.
func TestEffectShowsTheDefaultPersistentHome(t *testing.T) {
	home := t.TempDir()
	if c, err := filepath.EvalSymlinks(home); err == nil {
		home = c
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	dir := StateDir(home, "default", "home")
	check := func(when string) {
		t.Helper()
		e, err := (&Policy{Home: HomePersistent}).Effect()
		if err != nil {
			t.Fatal(err)
		}
		x := e.Explain(filepath.Join(dir, "file"))
		if x.Access != ReadWrite || x.Rule == nil || x.Rule.Path != dir || x.Rule.Source != SourceInternal {
			t.Errorf("%s: Explain(%s/file) = %+v (rule %+v), want rw by the home %s (nsrun)", when, dir, x, x.Rule, dir)
		}
	}
	check("before the home exists")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	check("once the home exists")
}

func TestPersistentHomeDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "")
	cases := []struct {
		name, homeDir string
		homes         []string
		want          string
		fails         bool
	}{
		{"given", "/srv/h", []string{"/home/u"}, "/srv/h", false},
		{"given relative", "h", nil, "/work/ws/h", false},
		{"default", "", []string{"/home/u", "/home/other"}, "/home/u/.local/state/nsrun/default/home", false},
		{"no home to keep it under", "", nil, "", true},
	}
	for _, c := range cases {
		got, err := persistentHomeDir(c.homeDir, c.homes, "/work/ws")
		if (err != nil) != c.fails || got != c.want {
			t.Errorf("%s: persistentHomeDir = %q, %v; want %q (fails %v)", c.name, got, err, c.want, c.fails)
		}
	}
}
