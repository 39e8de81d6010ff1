package nsrun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// removeTree removes a sandbox's private temporary directory once nothing
// of the sandbox runs: also the directories the payload made unreadable or
// unwritable (chmod 000), which os.RemoveAll alone leaves behind.
func removeTree(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	// WalkDir follows no symlink: only the tree's own directories are
	// opened up.
	// A directory is seen before it is read: opened up first, it can be.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the private temporary directory %s: %w", dir, err)
	}
	return nil
}
