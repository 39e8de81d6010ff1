package nsrun

import (
	"os"
	"path/filepath"
	"testing"
)

// A payload's chmod 000 on directories of its temporary directory does not
// keep them on the host.
func TestRemoveTreeOpensLockedDirectories(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root removes what it cannot read anyway")
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tmp")
	for _, d := range []string{"d/e/f", "x"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "d/e/f/file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"d/e", "d", "x"} {
		if err := os.Chmod(filepath.Join(tree, d), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeTree(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", tree, err)
	}
}
