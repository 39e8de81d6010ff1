package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
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

// A run's temporary directory is removed by the next run only when its
// lock file is free (the run died); a held one, a directory without a lock
// file, and what a symlink in its place points to are left alone.
func TestRemoveStaleTmp(t *testing.T) {
	parent := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "sub", "f"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	touch := func(name string) *os.File {
		f, err := os.Create(filepath.Join(parent, name))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	stale := mk("nsrun-1")
	touch("nsrun-1.lock").Close()
	live := mk("nsrun-2")
	held := touch("nsrun-2.lock")
	defer held.Close()
	if err := unix.Flock(int(held.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	unlocked := mk("nsrun-3")
	touch("nsrun-4.lock").Close()
	target := mk("elsewhere")
	if err := os.Symlink(target, filepath.Join(parent, "nsrun-5")); err != nil {
		t.Fatal(err)
	}
	touch("nsrun-5.lock").Close()

	removeStaleTmp(parent)
	for _, gone := range []string{stale, stale + ".lock", filepath.Join(parent, "nsrun-4.lock"), filepath.Join(parent, "nsrun-5.lock")} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	for _, kept := range []string{filepath.Join(live, "sub", "f"), live + ".lock", filepath.Join(unlocked, "sub", "f"), filepath.Join(target, "sub", "f"), filepath.Join(parent, "nsrun-5")} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
}

// A run's own directory is locked while it lives (a later run leaves it
// alone) and removed with its lock file at the end.
func TestTmpDirLockedThenRemoved(t *testing.T) {
	parent := t.TempDir()
	t.Setenv("TMPDIR", parent)
	d, err := NewTmpDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(d.path) != parent {
		t.Fatalf("%s is not in %s", d.path, parent)
	}
	if err := os.WriteFile(filepath.Join(d.path, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	removeStaleTmp(parent)
	if _, err := os.Stat(filepath.Join(d.path, "f")); err != nil {
		t.Fatalf("a live run's directory was removed: %v", err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
