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
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		if err != nil && d != nil && d.IsDir() {
			// Unreadable before the chmod: walk it again now.
			return filepath.WalkDir(p, func(q string, e fs.DirEntry, _ error) error {
				if e != nil && e.IsDir() {
					_ = os.Chmod(q, 0o700)
				}
				return nil
			})
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the private temporary directory %s: %w", dir, err)
	}
	return nil
}
