//go:build !unix

package gitguard

import "os"

// mayHide reports whether the payload could have put something in dir
// that nsrun cannot read: without owners to tell, any directory that
// still exists.
func mayHide(dir string) bool {
	_, err := os.Lstat(dir)
	return err == nil
}
