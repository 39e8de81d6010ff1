package nsrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSubtreeGuards(t *testing.T) {
	base := t.TempDir()
	tenants := filepath.Join(base, "tenants")
	for _, d := range []string{"tenants/alice", "other/bob", "real"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tenants, "file"), nil, 0o644)
	os.Symlink(filepath.Join(base, "other", "bob"), filepath.Join(tenants, "mallory"))
	os.Symlink(filepath.Join(base, "other"), filepath.Join(base, "linkroot"))
	os.Symlink(base, filepath.Join(base, "real", "up"))

	r, err := Subtree(tenants, "alice", ReadWrite, SourceUser)
	canonBase, _ := filepath.EvalSymlinks(base)
	if err != nil || r.Path != filepath.Join(canonBase, "tenants", "alice") || r.Access != ReadWrite {
		t.Errorf("alice: %+v %v", r, err)
	}
	// The root's parent may go through a symlink; it is canonicalized.
	if r, err := Subtree(filepath.Join(base, "real", "up", "tenants"), "alice", ReadOnly, SourceUser); err != nil || r.Path != filepath.Join(canonBase, "tenants", "alice") {
		t.Errorf("canonical parent: %+v %v", r, err)
	}
	for _, tc := range []struct{ root, name, want string }{
		{tenants, "", "empty"},
		{tenants, ".", "not a plain name"},
		{tenants, "..", "not a plain name"},
		{tenants, "alice/../bob", "contains /"},
		{tenants, "a\nb", "control character"},
		{tenants, "a\x00b", "control character"},
		{tenants, "mallory", "symlink"},
		{filepath.Join(base, "linkroot"), "bob", "symlink"},
		{tenants, "file", "not a directory"},
		{tenants, "nobody", "no such file"},
	} {
		if _, err := Subtree(tc.root, tc.name, ReadWrite, SourceUser); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Subtree(%s, %q): %v, want %q", tc.root, tc.name, err, tc.want)
		}
	}
}
