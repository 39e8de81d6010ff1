package windows

import (
	"errors"
	"strings"
	"testing"
)

func TestVerdict(t *testing.T) {
	denied := errors.New("access is denied")
	for _, c := range []struct {
		name   string
		checks []Check
		ok     bool
		detail string
	}{
		{"all worked", []Check{{"restricted token", nil}, {"job object", nil}, {"ACE journal", nil}}, true, "restricted token"},
		{"no token", []Check{{"restricted token", denied}, {"job object", nil}}, false, "restricted token: access is denied"},
		{"the first failure named", []Check{{"restricted token", nil}, {"job object", denied}, {"ACE journal", errors.New("no cache dir")}}, false, "job object: access is denied"},
		{"nothing checked", nil, false, "nothing was checked"},
	} {
		ok, detail := Verdict(c.checks)
		if ok != c.ok || !strings.Contains(detail, c.detail) {
			t.Errorf("%s: Verdict = %v, %q; want %v and %q", c.name, ok, detail, c.ok, c.detail)
		}
	}
}
