package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// The openat2 fast path answers only for a path without a symlink or "..",
// and then as the slow way would.
func TestCanonicalFast(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, "d")
	if got, info, ok := canonicalFast(d, d); !ok || got != d || !info.IsDir() || info.Name() != "d" {
		t.Errorf("a plain directory: %q, %v, %v", got, info, ok)
	}
	for _, p := range []string{filepath.Join(dir, "l"), filepath.Join(dir, "l", "."), filepath.Join(dir, "none")} {
		if _, _, ok := canonicalFast(p, p); ok {
			t.Errorf("%s: answered by the fast path", p)
		}
	}
	if _, _, ok := canonicalFast(d, dir+"/x/../d"); ok {
		t.Error("a path given with \"..\": answered by the fast path")
	}
}
