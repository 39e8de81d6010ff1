package paths

import "testing"

func TestWithinAndDepth(t *testing.T) {
	for _, c := range []struct {
		p, base string
		want    bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/", "/a", false}, {"/x", "/", true},
	} {
		if got := Within(c.p, c.base); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.p, c.base, got)
		}
	}
	for p, want := range map[string]int{"/": 0, "/a": 1, "/a/b/c": 3} {
		if got := Depth(p); got != want {
			t.Errorf("Depth(%q) = %d, want %d", p, got, want)
		}
	}
}
