package plan

import "testing"

func TestWayRoot(t *testing.T) {
	rw := map[string]bool{"/home/me/proj": true, "/home/me/proj/a": true, "/home/me/proj/a/b": true, "/srv": true, "/srv/x": true}
	writable := func(p string) bool { return rw[p] }
	for _, tc := range []struct{ dir, want string }{
		{"/home/me/proj/a/b", "/home/me/proj"},
		{"/home/me/proj", "/home/me/proj"},
		{"/srv/x", "/srv"},
		{"/elsewhere/.git", "/elsewhere/.git"},
	} {
		if got := wayRoot(tc.dir, writable); got != tc.want {
			t.Errorf("wayRoot(%s) = %s, want %s", tc.dir, got, tc.want)
		}
	}
}
