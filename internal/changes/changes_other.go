//go:build !linux

package changes

import "errors"

// Overlays, and so kept changes, exist only on Linux: elsewhere Scan and
// Apply fail.
var errNotLinux = errors.New("kept overlay changes need Linux")

// source is empty: nothing here finds a change.
type source struct{}

// Change embeds source on every system; here nothing fills or reads it.
var _ = Change{}.source

// Scan lists the changes kept in dir; it needs Linux.
func Scan(dir string) (*Manifest, []Change, error) { return nil, nil, errNotLinux }

// Apply writes the changes kept in dir onto the host; it needs Linux.
func Apply(dir string) ([]Change, error) { return nil, errNotLinux }
