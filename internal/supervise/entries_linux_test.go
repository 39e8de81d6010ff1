package supervise

import "testing"

// What keeps its name: a protected path, and every directory holding one.
func TestMayChangeKeepsProtectedPathsAndTheirDirectories(t *testing.T) {
	s := &Supervisor{cfg: Config{Policy: Policy{
		Rules:     []Rule{{Path: "/w", Writable: true}, {Path: "/w/.git/config"}, {Path: "/w/.git/hooks"}},
		Protected: []string{"/w/.git/config", "/w/.git/hooks"},
	}}}
	for p, want := range map[string]bool{
		"/w/new":                   true,
		"/w/.git/index.lock":       true,
		"/w/.git/objects/ab":       true,
		"/w/.git":                  false, // holds protected paths
		"/w":                       false,
		"/w/.git/config":           false,
		"/w/.git/hooks":            false,
		"/w/.git/hooks/pre-commit": false, // not writable
		"/elsewhere":               false,
	} {
		if got := s.mayChange(p); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
}
