package nsrun

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCanonicalRule(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "d"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "f"), nil, 0o644))
	must(os.Symlink("d", filepath.Join(dir, "link")))
	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	must(err)
	defer ln.Close()

	for _, tc := range []struct {
		path   string
		access Access
		canon  string // relative to dir; "" when an error is expected
		err    string
	}{
		{"d", ReadWrite, "d", ""},
		{"f", ReadOnly, "f", ""},
		{"link", ReadWrite, "d", ""},
		{"./d/../f", Deny, "f", ""},
		{"sock", Deny, "sock", ""},
		{"sock", ReadWrite, "sock", ""},
		{"sock", Tmpfs, "", "is a socket, not a directory"},
		{"/dev/null", ReadOnly, "", "is a character device"},
		{"f", Tmpfs, "", "is a regular file, not a directory"},
		{"missing", ReadOnly, "", "no such file or directory"},
		{"", ReadOnly, "", "empty path"},
		{"d", Access(99), "", "unknown access"},
	} {
		cr, err := canonicalRule(Rule{Path: tc.path, Access: tc.access}, dir)
		if tc.err != "" {
			var re *RuleError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: got %v, want a RuleError with %q", tc.access, tc.path, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.access, tc.path, err)
			continue
		}
		want, _ := filepath.EvalSymlinks(filepath.Join(dir, tc.canon))
		if cr.Canon != want {
			t.Errorf("%s %q: canonical %q, want %q", tc.access, tc.path, cr.Canon, want)
		}
	}
}

func rules(rs ...canonRule) []canonRule { return rs }

func cr(p string, a Access) canonRule {
	return canonRule{Rule: Rule{Path: p, Access: a}, Canon: p, Dir: true}
}

func TestCover(t *testing.T) {
	rs := rules(cr("/tmp", Tmpfs), cr("/w", ReadWrite), cr("/w/.git", ReadOnly), cr("/w", Deny), cr("/w/pub", ReadOnly))
	for _, tc := range []struct {
		p    string
		want Access
		ok   bool
	}{
		{"/etc", 0, false},
		{"/tmp/x", Tmpfs, true},
		{"/w/src", Deny, true}, // same path: the later rule
		{"/w/.git/config", ReadOnly, true},
		{"/w/pub", ReadOnly, true},
		{"/wx", 0, false},
	} {
		r, ok := cover(rs, tc.p)
		if ok != tc.ok || ok && r.Access != tc.want {
			t.Errorf("cover(%s) = %v %v, want %v %v", tc.p, r.Access, ok, tc.want, tc.ok)
		}
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&ExitError{Code: 3}, 3},
		{&ExitError{Code: 124, TimedOut: true}, 124},
		{&SetupError{Code: 127}, 127},
		{&RuleError{Rule: Rule{Path: "x", Access: ReadOnly}, Err: errors.New("no")}, 125},
		{errors.New("anything"), 125},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func ExampleExitCode() {
	fmt.Println(ExitCode(nil), ExitCode(&ExitError{Code: 137, Signal: 9}), ExitCode(&SetupError{Code: ExitNotFound}),
		ExitCode(&RuleError{Rule: Rule{Path: "ws", Access: ReadWrite}, Err: errors.New("no such file or directory")}))
	// Output: 0 137 127 125
}
