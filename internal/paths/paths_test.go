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

// Cover takes the deepest place at or above p, the later of two at one
// place, and none where nothing covers p.
func TestCover(t *testing.T) {
	type it struct{ place, name string }
	items := []it{{"/a", "a"}, {"/a/b", "ab1"}, {"/a/b", "ab2"}, {"/", "root"}, {"/c/d", "cd"}}
	at := func(i it) string { return i.place }
	for p, want := range map[string]string{"/a/b/c": "ab2", "/a/x": "a", "/c": "root", "/c/d/e": "cd", "/": "root"} {
		if got, ok := Cover(items, p, at); !ok || got.name != want {
			t.Errorf("Cover(%q) = %v, %v; want %s", p, got, ok, want)
		}
	}
	if got, ok := Cover(items[:1], "/b", at); ok {
		t.Errorf("Cover(/b) over /a = %v, want none", got)
	}
}
