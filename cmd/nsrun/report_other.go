//go:build !linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// writable is left to the write itself on this system.
func writable(string) error { return nil }

// replaceFile puts a file holding data at dir/base: a new file in dir
// renamed over base, which replaces a file or symlink there rather than
// writing through it.
func replaceFile(dir, base string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+base+".nsrun-*")
	if err != nil {
		return fmt.Errorf("create a file in %s: %w", dir, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, base))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", filepath.Join(dir, base), err)
	}
	return nil
}
