package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestText(t *testing.T) {
	flag := func(s Setting) string {
		return map[Setting]string{IsolationLandlock: "--isolation landlock", LandlockOff: "--landlock off", HomeDir: "--home"}[s]
	}
	cause := fs.ErrNotExist
	inner := New("%s: %w", HomeDir.With("/h"), cause)
	for _, c := range []struct {
		err       error
		lib, said string
	}{
		{New("%s needs Landlock; add %s", IsolationLandlock, LandlockOff),
			"Policy.Isolation = IsolationLandlock needs Landlock; add Policy.Landlock = LandlockOff",
			"--isolation landlock needs Landlock; add --landlock off"},
		{inner, "Policy.HomeDir /h: file does not exist", "--home /h: file does not exist"},
		{New("setup: %w", inner), "setup: Policy.HomeDir /h: file does not exist", "setup: --home /h: file does not exist"},
		{fmt.Errorf("op: %w", inner), "op: Policy.HomeDir /h: file does not exist", "op: --home /h: file does not exist"},
		{New("%s: %w", IsolationLandlock, fmt.Errorf("wrapped: %w", inner)),
			"Policy.Isolation = IsolationLandlock: wrapped: Policy.HomeDir /h: file does not exist",
			"--isolation landlock: wrapped: --home /h: file does not exist"},
		{errors.New("plain"), "plain", "plain"},
		{errors.New("no Text: Policy.Isolation = IsolationLandlock"), "no Text: Policy.Isolation = IsolationLandlock", "no Text: --isolation landlock"},
	} {
		if got := c.err.Error(); got != c.lib {
			t.Errorf("Error() = %q, want %q", got, c.lib)
		}
		if got := Reword(c.err.Error(), c.err, flag); got != c.said {
			t.Errorf("Reword = %q, want %q", got, c.said)
		}
	}
	if err := New("%s: %w", HomeDir.With("/h"), cause); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is does not see the cause of %v", err)
	}
}
