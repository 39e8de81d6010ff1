package plan

import "testing"

func TestSome(t *testing.T) {
	for _, tc := range []struct {
		list []string
		n    int
		want string
	}{
		{nil, 3, ""},
		{[]string{"a", "b"}, 3, "a, b"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, 3, "a, b, c, and 2 more paths"},
	} {
		if got := some(tc.list, tc.n, "paths", ", "); got != tc.want {
			t.Errorf("some(%q, %d) = %q, want %q", tc.list, tc.n, got, tc.want)
		}
	}
}
