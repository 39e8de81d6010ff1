//go:build !linux

package nsrun

import "errors"

var errNoChanges = errors.New("kept overlay changes need Linux")

// ReadChanges lists the changes kept with Policy.KeepChanges (Linux).
func ReadChanges(dir string) ([]Change, error) { return nil, errNoChanges }

// ApplyChanges applies the changes kept with Policy.KeepChanges (Linux).
func ApplyChanges(dir string) ([]Change, error) { return nil, errNoChanges }
