package nsrun

import (
	"fmt"
	"strings"
	"testing"
)

func r(p string, a Access, s Source) Rule { return Rule{Path: p, Access: a, Source: s} }

func TestEffectiveAndResolve(t *testing.T) {
	const (
		user = SourceUser
		base = SourceBaseline
		mand = SourceMandatory
	)
	for _, tc := range []struct {
		name      string
		rules     []Rule
		probes    map[string]string // path -> "access by-path" ("ro /" for the root)
		overruled []string
	}{
		{
			name:   "the deepest covering rule decides",
			rules:  []Rule{r("/w", ReadWrite, user), r("/w/.git", ReadOnly, user)},
			probes: map[string]string{"/w/a": "rw /w", "/w/.git/config": "ro /w/.git", "/etc": "ro /", "/wx": "ro /"},
		},
		{
			name:      "same path: the higher source wins",
			rules:     []Rule{r("/w", ReadWrite, mand), r("/w", Deny, user)},
			probes:    map[string]string{"/w/a": "rw /w"},
			overruled: []string{"deny /w (user): dropped by rw /w (mandatory)"},
		},
		{
			name:      "same path and source: the more restrictive wins, whatever the order",
			rules:     []Rule{r("/w", ReadOnly, user), r("/w", ReadWrite, user), r("/v", Tmpfs, user), r("/v", Deny, user)},
			probes:    map[string]string{"/w/a": "ro /w", "/v/a": "deny /v"},
			overruled: []string{"rw /w (user): dropped by ro /w (user)", "tmpfs /v (user): dropped by deny /v (user)"},
		},
		{
			name:      "a deny covers deeper grants of lower sources",
			rules:     []Rule{r("/home/me/.ssh", Deny, mand), r("/home/me/.ssh/keys", ReadWrite, user), r("/home/me", ReadWrite, user)},
			probes:    map[string]string{"/home/me/.ssh/keys/id": "deny /home/me/.ssh", "/home/me/x": "rw /home/me"},
			overruled: []string{"rw /home/me/.ssh/keys (user): dropped by deny /home/me/.ssh (mandatory)"},
		},
		{
			name:   "a deny of one source keeps that source's deeper grants",
			rules:  []Rule{r("/s", Deny, user), r("/s/public", ReadOnly, user)},
			probes: map[string]string{"/s/public/a": "ro /s/public", "/s/private": "deny /s"},
		},
		{
			name:   "a deeper grant of a higher source shows under a deny",
			rules:  []Rule{r("/s", Deny, base), r("/s/public", ReadOnly, user)},
			probes: map[string]string{"/s/public/a": "ro /s/public"},
		},
		{
			name:      "a read-only of a higher source makes deeper writable rules read-only",
			rules:     []Rule{r("/w/.git", ReadOnly, mand), r("/w/.git/hooks", ReadWrite, user), r("/w", ReadWrite, user)},
			probes:    map[string]string{"/w/.git/hooks/pre-commit": "ro /w/.git/hooks", "/w/src": "rw /w"},
			overruled: []string{"rw /w/.git/hooks (user): made ro by ro /w/.git (mandatory)"},
		},
		{
			name:   "a tmpfs under a higher read-only stays a tmpfs",
			rules:  []Rule{r("/c", ReadOnly, mand), r("/c/cache", Tmpfs, user)},
			probes: map[string]string{"/c/cache/x": "tmpfs /c/cache"},
		},
		{
			name:      "the root's deny of a higher source drops everything below",
			rules:     []Rule{r("/", Deny, mand), r("/w", ReadWrite, user)},
			probes:    map[string]string{"/w": "deny /"},
			overruled: []string{"rw /w (user): dropped by deny / (mandatory)"},
		},
		{
			name:   "nsrun's own rules give way to the caller's",
			rules:  []Rule{r("/tmp", Tmpfs, SourceInternal), r("/tmp", ReadWrite, user)},
			probes: map[string]string{"/tmp/x": "rw /tmp"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eff, over := Effective(tc.rules)
			for p, want := range tc.probes {
				a, by, ok := Resolve(eff, p)
				got := a.String() + " /"
				if ok {
					got = a.String() + " " + by.Path
				}
				if got != want {
					t.Errorf("Resolve(%s) = %s, want %s", p, got, want)
				}
			}
			var gotOver []string
			for _, o := range over {
				if o.Rule.Source != SourceInternal {
					gotOver = append(gotOver, o.String())
				}
			}
			if strings.Join(gotOver, "\n") != strings.Join(tc.overruled, "\n") {
				t.Errorf("overruled:\n%s\nwant:\n%s", strings.Join(gotOver, "\n"), strings.Join(tc.overruled, "\n"))
			}
		})
	}
}

// FuzzEffective checks the invariants of precedence on random rule sets:
// one rule per path, no grant under a deny of a higher source, no
// writable rule under a read-only of a higher source, and Resolve agreeing
// with a direct reading of "the deepest rule decides".
func FuzzEffective(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("deny ro rw tmpfs /a/b/c"))
	f.Fuzz(func(t *testing.T, b []byte) {
		paths := []string{"/a", "/a/b", "/a/b/c", "/a/c", "/d", "/"}
		var rules []Rule
		for i := 0; i+2 < len(b) && len(rules) < 12; i += 3 {
			rules = append(rules, Rule{
				Path:   paths[int(b[i])%len(paths)],
				Access: Access(int(b[i+1])%4 + 1),
				Source: Source(int(b[i+2])%4 - 1),
			})
		}
		eff, _ := Effective(rules)
		seen := map[string]bool{}
		for _, e := range eff {
			if seen[e.Path] {
				t.Fatalf("two rules for %s: %v", e.Path, eff)
			}
			seen[e.Path] = true
			for _, a := range eff {
				if a.Path != e.Path && strings.HasPrefix(e.Path, strings.TrimSuffix(a.Path, "/")+"/") && a.Source.rank() > e.Source.rank() {
					if a.Access == Deny {
						t.Fatalf("%v kept under %v", e, a)
					}
					if a.Access == ReadOnly && e.Access == ReadWrite {
						t.Fatalf("%v writable under %v", e, a)
					}
				}
			}
		}
		for _, p := range append(paths, "/a/b/c/d", "/x") {
			got, _, _ := Resolve(eff, p)
			want, best := ReadOnly, -1
			for _, e := range eff {
				if (e.Path == "/" || p == e.Path || strings.HasPrefix(p, e.Path+"/")) && len(e.Path) > best {
					want, best = e.Access, len(e.Path)
				}
			}
			if got != want {
				t.Fatalf("Resolve(%s) = %v, want %v; rules %s", p, got, want, fmt.Sprint(eff))
			}
		}
	})
}
