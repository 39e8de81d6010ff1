package main

import (
	"testing"

	"github.com/nsrun/nsrun/internal/errs"
)

// TestEverySettingHasAFlag: a setting the library's errors name without a
// flag here would reach the command's messages in the library's words.
func TestEverySettingHasAFlag(t *testing.T) {
	for _, s := range errs.Settings {
		if _, ok := settingFlags[s]; !ok {
			t.Errorf("no flag for %q", s)
		}
	}
	if len(settingFlags) != len(errs.Settings) {
		t.Errorf("%d flags for %d settings", len(settingFlags), len(errs.Settings))
	}
}
