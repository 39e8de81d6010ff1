package supervise

import "testing"

func TestWritableDeepestRuleDecides(t *testing.T) {
	pol := Policy{Rules: []Rule{
		{Path: "/home/me/proj", Writable: true},
		{Path: "/home/me/proj/.git", Writable: false},
		{Path: "/home/me/proj/.git/objects", Writable: true},
		{Path: "/tmp/nsrun-1", Writable: true},
	}}
	for p, want := range map[string]bool{
		"/home/me/proj":                 true,
		"/home/me/proj/a/b.sock":        true,
		"/home/me/proj/.git":            false,
		"/home/me/proj/.git/config":     false,
		"/home/me/proj/.git/objects/ab": true,
		"/home/me/projx":                false,
		"/home/me":                      false,
		"/tmp/nsrun-1/s":                true,
		"/tmp/nsrun-10":                 false,
		"/run/docker.sock":              false,
		"/":                             false,
		"/home/me/proj/.gitignore":      true,
	} {
		if got := pol.Writable(p); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
	if !(Policy{Rules: []Rule{{Path: "/", Writable: true}, {Path: "/etc", Writable: false}}}).Writable("/usr/x") {
		t.Error("a writable root")
	}
}
