package errs

import (
	"errors"
	"testing"
)

func TestStep(t *testing.T) {
	cause := errors.New("no such file")
	for _, c := range []struct {
		op, msg string
		err     error
		want    string
	}{
		{"open x", "", cause, "open x: no such file"},
		{"open x", "x is gone", cause, "x is gone"},
		{"open x", "", nil, "open x"},
		{"", "", cause, "no such file"},
		{"", "", nil, ""},
	} {
		if got := Step(c.op, c.msg, c.err); got != c.want {
			t.Errorf("Step(%q, %q, %v) = %q, want %q", c.op, c.msg, c.err, got, c.want)
		}
	}
}
