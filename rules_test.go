package nsrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rule with From shows a host path at a place inside: the place is
// taken as it is (absolute, cleaned, never resolved on the host), the host
// path resolved and checked for its kind.
func TestCanonicalMappedRules(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r          Rule
		canon, src string
		err        string
	}{
		{r: Rule{Path: "/work/./x/", From: "link", Access: ReadWrite}, canon: "/work/x", src: dir},
		{r: Rule{Path: "/etc/hosts", From: "f", Access: Copy}, canon: "/etc/hosts", src: filepath.Join(dir, "f")},
		{r: Rule{Path: "/usr/lib64", From: "../x/../lib", Access: Symlink}, canon: "/usr/lib64"},
		{r: Rule{Path: "/work", Access: Directory}, canon: "/work"},
		{r: Rule{Path: "/dev/kvm0", From: "/dev/null", Access: Device}, canon: "/dev/kvm0", src: "/dev/null"},
		{r: Rule{Path: "/dev/null", Access: Device}, canon: "/dev/null", src: "/dev/null"},
		{r: Rule{Path: "/o", From: "link", Access: Overlay}, canon: "/o", src: dir},
		{r: Rule{Path: "/o", From: "f", Access: Overlay}, err: "not a directory"},
		{r: Rule{Path: "work", From: dir, Access: ReadWrite}, err: `"work" is not an absolute path`},
		{r: Rule{Path: "/w", From: "nope", Access: ReadOnly}, err: "nope: no such file"},
		{r: Rule{Path: "/w", From: dir, Access: Tmpfs}, err: "tmpfs shows nothing from another host path"},
		{r: Rule{Path: "/w", From: dir, Access: Copy}, err: "only a regular file can be copied"},
		{r: Rule{Path: "/w", Access: Copy}, err: "needs the host file"},
		{r: Rule{Path: "/w", Access: Symlink}, err: "needs a target"},
		{r: Rule{Path: "/w", From: "/x", Access: Directory}, err: "shows nothing from the host"},
		{r: Rule{Path: "/x/kvm", From: "/dev/null", Access: Device}, err: "not under /dev"},
		{r: Rule{Path: "/dev/x", From: "f", Access: Device}, err: "not a character device"},
		{r: Rule{Path: "/dev", Access: Device}, err: "the host's whole /dev"},
		{r: Rule{Path: "/dev/null", Access: BlockDevice}, err: "not a block device"},
		{r: Rule{Path: "/w", From: "/dev/null", Access: ReadWrite}, err: "is a character device"},
	} {
		cr, err := canonicalRule(tc.r, dir)
		if tc.err != "" {
			var re *RuleError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: got %v, want a RuleError with %q", tc.r, err, tc.err)
			}
			continue
		}
		if err != nil || cr.Canon != tc.canon || cr.host != tc.src {
			t.Errorf("%+v: %q from %q (%v), want %q from %q", tc.r, cr.Canon, cr.host, err, tc.canon, tc.src)
		}
	}
}

// Two rules of one source at one place conflict when they would show
// different things there; precedence settles the rest.
func TestConflicts(t *testing.T) {
	at := func(p, host string, a Access, dir bool) canonRule {
		return canonRule{Rule: Rule{Path: p, Access: a}, Canon: p, host: host, Dir: dir}
	}
	link := func(p, target string) canonRule {
		return canonRule{Rule: Rule{Path: p, Access: Symlink, From: target}, Canon: p}
	}
	for _, tc := range []struct {
		name     string
		a, b     canonRule
		conflict bool
	}{
		{"two host paths", at("/w", "/a", ReadWrite, true), at("/w", "/b", ReadOnly, true), true},
		{"the place's own and another", at("/w", "/w", ReadWrite, true), at("/w", "/b", ReadWrite, true), true},
		{"one host path twice", at("/w", "/a", ReadWrite, true), at("/w", "/a", ReadOnly, true), false},
		{"a bind and an overlay of it", at("/w", "/w", ReadWrite, true), at("/w", "/w", Overlay, true), false},
		{"a bind and a deny", at("/w", "/a", ReadWrite, true), at("/w", "/w", Deny, true), false},
		{"a bind and a tmpfs", at("/w", "/a", ReadWrite, true), at("/w", "", Tmpfs, true), false},
		{"a directory and a bind of one", at("/w", "", Directory, true), at("/w", "/a", ReadWrite, true), false},
		{"a directory and a file", at("/w", "", Directory, true), at("/w", "/f", ReadOnly, false), true},
		{"a directory and a copy", at("/w", "", Directory, true), at("/w", "/f", Copy, false), true},
		{"a copy and a bind", at("/w", "/f", Copy, false), at("/w", "/f", ReadOnly, false), true},
		{"a copy twice", at("/w", "/f", Copy, false), at("/w", "/f", Copy, false), false},
		{"two copies", at("/w", "/f", Copy, false), at("/w", "/g", Copy, false), true},
		{"a device and a deny", at("/dev/x", "/dev/kvm", Device, false), at("/dev/x", "/dev/x", Deny, false), true},
		{"two symlinks", link("/l", "a"), link("/l", "b"), true},
		{"one symlink twice", link("/l", "a"), link("/l", "a"), false},
	} {
		if got := conflict(tc.a, tc.b); got != tc.conflict {
			t.Errorf("%s: conflict %v, want %v", tc.name, got, tc.conflict)
		}
		if got := conflict(tc.b, tc.a); got != tc.conflict {
			t.Errorf("%s, the other way: conflict %v, want %v", tc.name, got, tc.conflict)
		}
	}
	// Only within one source: a higher source's rule wins by precedence.
	base := at("/w", "/a", ReadWrite, true)
	base.Source = SourceBaseline
	if err := checkConflicts([]canonRule{base, at("/w", "/b", ReadOnly, true)}); err != nil {
		t.Errorf("across sources: %v", err)
	}
	if err := checkConflicts([]canonRule{at("/w", "/a", ReadWrite, true), at("/w", "/b", ReadOnly, true)}); err == nil || !strings.Contains(err.Error(), "two different things at one place") {
		t.Errorf("within one source: %v", err)
	}
}

// Precedence knows the new accesses: an overlay is more restrictive than
// rw and less than a tmpfs; a read-only rule of a higher source turns an
// overlay read-only; a directory gives way.
func TestEffectiveNewAccesses(t *testing.T) {
	eff, _ := Effective([]Rule{
		{Path: "/a", Access: ReadWrite}, {Path: "/a", Access: Overlay},
		{Path: "/b", Access: Overlay}, {Path: "/b", Access: Tmpfs},
		{Path: "/c", Access: Directory}, {Path: "/c", Access: ReadWrite, From: "/x"},
		{Path: "/m", Access: ReadOnly, Source: SourceMandatory}, {Path: "/m/o", Access: Overlay},
		{Path: "/d", Access: Deny, Source: SourceMandatory}, {Path: "/d/f", Access: Copy, From: "/f"},
	})
	got := map[string]Access{}
	for _, r := range eff {
		got[r.Path] = r.Access
	}
	for p, a := range map[string]Access{"/a": Overlay, "/b": Tmpfs, "/c": ReadWrite, "/m/o": ReadOnly, "/d": Deny} {
		if got[p] != a {
			t.Errorf("%s: %v, want %v", p, got[p], a)
		}
	}
	if _, ok := got["/d/f"]; ok {
		t.Error("a copy under a higher source's deny was kept")
	}
	for _, r := range eff {
		if r.Path == "/c" && r.From != "/x" {
			t.Errorf("/c lost where it is from: %+v", r)
		}
	}
}

// A rule's option is what the command line gives it with.
func TestRuleOption(t *testing.T) {
	for _, tc := range []struct {
		r    Rule
		want string
	}{
		{Rule{Access: ReadOnly}, "ro"}, {Rule{Access: ReadOnly, From: "/x"}, "ro-bind"}, {Rule{Access: ReadWrite, From: "/x"}, "bind"},
		{Rule{Access: Device}, "dev"}, {Rule{Access: Device, From: "/x"}, "dev-bind"}, {Rule{Access: BlockDevice}, "dev-block"},
		{Rule{Access: Copy, From: "/x"}, "file"}, {Rule{Access: Symlink, From: "x"}, "symlink"}, {Rule{Access: Directory}, "dir"}, {Rule{Access: Overlay}, "overlay"},
	} {
		if got := tc.r.Option(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}
