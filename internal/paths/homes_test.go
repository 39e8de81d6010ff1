package paths

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCanonicalAncestor(t *testing.T) {
	dir := t.TempDir()
	if c, err := filepath.EvalSymlinks(dir); err == nil {
		dir = c
	}
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{dir + "/link", dir + "/real"},
		{dir + "/link/missing/x", dir + "/real/missing/x"},
		{dir + "/real/missing", dir + "/real/missing"},
		{dir + "/dangling/x", dir + "/dangling/x"},
		{"/", "/"},
	}
	for _, c := range cases {
		if got := CanonicalAncestor(c.in); got != c.want {
			t.Errorf("CanonicalAncestor(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
