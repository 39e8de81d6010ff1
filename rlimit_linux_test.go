package nsrun

import "testing"

func TestDefaultRlimits(t *testing.T) {
	if got := withDefaultRlimits(nil); len(got) != 1 || got[0] != (Rlimit{Name: "core"}) {
		t.Errorf("default: %+v", got)
	}
	own := []Rlimit{{Name: "core", Soft: 10, Hard: 10}}
	if got := withDefaultRlimits(own); len(got) != 1 || got[0].Soft != 10 {
		t.Errorf("a caller's core limit must stay: %+v", got)
	}
}
