package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
)

// NSRUN_INIT: unset or raw is the raw init, go the Go init; anything else
// is refused with the setup status, naming the value and the choices.
func TestInitChoice(t *testing.T) {
	for _, c := range []struct {
		value string
		raw   bool
	}{{"", true}, {"raw", true}, {"go", false}} {
		raw, err := initChoice(c.value)
		if err != nil || raw != c.raw {
			t.Errorf("NSRUN_INIT=%q: raw %v, %v; want raw %v", c.value, raw, err, c.raw)
		}
	}
	for _, value := range []string{"Go", "RAW", "golang", " raw", "1", "none"} {
		_, err := initChoice(value)
		var e *Error
		if !errors.As(err, &e) || e.Code != launch.ExitSetup {
			t.Errorf("NSRUN_INIT=%q: %v, want a setup error", value, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "NSRUN_INIT="+value+":") || strings.Contains(msg, "\n") ||
			!strings.Contains(msg, "raw") || !strings.Contains(msg, "go") {
			t.Errorf("NSRUN_INIT=%q: %q", value, msg)
		}
	}
}

// New refuses an NSRUN_INIT that names no init before it makes anything,
// for a Landlock-only sandbox too.
func TestNewRefusesAnUnknownInit(t *testing.T) {
	t.Setenv("NSRUN_INIT", "bogus")
	for _, direct := range []bool{false, true} {
		s, err := New(&Attr{Direct: direct})
		if err == nil {
			s.Abort()
			t.Fatalf("direct %v: New took NSRUN_INIT=bogus", direct)
		}
		if !strings.HasPrefix(err.Error(), "NSRUN_INIT=bogus: ") {
			t.Errorf("direct %v: %v", direct, err)
		}
	}
}
