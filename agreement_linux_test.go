package nsrun

import (
	"github.com/nsrun/nsrun/internal/plan"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
)

// planAccess reads a mount plan the way the sandbox sees it: the deepest
// op covering p decides.
func planAccess(plan *mounts.Plan, p string) Access {
	access, depth := Access(ReadOnly), -1
	if !plan.Root.ReadOnly {
		access = ReadWrite
	}
	for _, op := range plan.Ops {
		if d := mounts.Depth(op.Path); mounts.Within(p, op.Path) && d > depth {
			depth = d
			switch {
			case op.Kind == mounts.OpBind && op.ReadOnly:
				access = ReadOnly
			case op.Kind == mounts.OpBind:
				access = ReadWrite
			case op.Kind == mounts.OpEmptyFile, op.Kind == mounts.OpTmpfs && op.ReadOnly:
				access = Deny
			case op.Kind == mounts.OpTmpfs:
				access = Tmpfs
			}
		}
	}
	return access
}

var agreementCorpus = [][]Rule{
	{r("/w", ReadWrite, SourceUser), r("/w/.git", ReadOnly, SourceUser)},
	{r("/h", Deny, SourceMandatory), r("/h/pub", ReadOnly, SourceUser), r("/h/me", ReadWrite, SourceMandatory)},
	{r("/s", Deny, SourceUser), r("/s/pub", ReadOnly, SourceUser), r("/s/pub/x", ReadWrite, SourceUser)},
	{r("/w", ReadWrite, SourceBaseline), r("/w", ReadOnly, SourceUser), r("/w/c", Tmpfs, SourceUser)},
	{r("/w/.git", ReadOnly, SourceMandatory), r("/w", ReadWrite, SourceUser), r("/w/.git/hooks", ReadWrite, SourceUser)},
	{r("/a", Tmpfs, SourceUser), r("/a/b", ReadWrite, SourceUser), r("/a/b/c", Deny, SourceBaseline)},
	{r("/usr", ReadOnly, SourceUser), r("/usr/local", ReadWrite, SourceUser), r("/usr/local/bin", ReadOnly, SourceUser)},
}

var agreementProbes = []string{"/", "/etc/passwd", "/w", "/w/a", "/w/.git/config", "/w/.git/hooks/x", "/w/c/x", "/h", "/h/pub/a",
	"/h/me/a", "/h/x", "/s/pub", "/s/pub/x/y", "/s/priv", "/a/x", "/a/b/x", "/a/b/c/d", "/usr/bin", "/usr/local/x", "/usr/local/bin/y"}

// The mount plan shows every probe path exactly as Resolve says.
func TestMountPlanAgreesWithResolve(t *testing.T) {
	for i, rules := range agreementCorpus {
		eff, _ := Effective(rules)
		in := mounts.Input{}
		for _, e := range eff {
			in.Rules = append(in.Rules, mounts.Rule{Path: e.Path, Access: mountAccess(e.Access), Dir: true})
		}
		plan, err := mounts.Make(in)
		if err != nil {
			t.Fatalf("corpus %d: %v", i, err)
		}
		for _, p := range agreementProbes {
			want, _, _ := Resolve(eff, p)
			if got := planAccess(plan, p); got != want {
				t.Errorf("corpus %d, %s: the mounts give %s, Resolve %s", i, p, got, want)
			}
		}
	}
}

// Landlock-only rules, carved, give each existing probe path the rights
// of the access Resolve says (deny: none but read_dir, which reaches every
// directory below a listed one; ro: read; rw: all).
func TestCarvedLandlockRulesAgreeWithResolve(t *testing.T) {
	// A fake tree holding every probe path as a directory.
	tree := map[string][]landlock.Entry{}
	for _, p := range agreementProbes {
		for child := p; child != "/"; child = parentOf(child) {
			d := parentOf(child)
			name := strings.TrimPrefix(strings.TrimPrefix(child, d), "/")
			if !hasEntry(tree[d], name) {
				tree[d] = append(tree[d], landlock.Entry{Name: name, Dir: true})
			}
		}
	}
	list := func(dir string) ([]landlock.Entry, error) { return tree[dir], nil }
	rights := map[Access]landlock.FS{Deny: 0, ReadOnly: landlock.ReadExec, ReadWrite: plan.RW}
	for i, rules := range agreementCorpus {
		eff, _ := Effective(rules)
		grants := []landlock.Grant{{Path: "/", Access: landlock.ReadExec, Dir: true}}
		skip := false
		for _, e := range eff {
			if e.Access == Tmpfs {
				skip = true // no tmpfs without namespaces
			}
			grants = append(grants, landlock.Grant{Path: e.Path, Access: rights[e.Access], Dir: true})
		}
		if skip {
			continue
		}
		out, err := landlock.Rules(grants, plan.RW, true, list)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range agreementProbes {
			var got landlock.FS
			for _, rule := range out {
				if mounts.Within(p, rule.Path) {
					got |= rule.Access
				}
			}
			want, _, _ := Resolve(eff, p)
			if want == Deny {
				got &^= landlock.ReadDir
			}
			if got != rights[want] && !carvedAncestor(tree, eff, p) {
				t.Errorf("corpus %d, %s: Landlock gives %v, Resolve %s", i, p, got, want)
			}
		}
	}
}

func parentOf(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

func hasEntry(es []landlock.Entry, name string) bool {
	for _, e := range es {
		if e.Name == name {
			return true
		}
	}
	return false
}

// carvedAncestor reports whether p is a directory on the way to a hole: those
// lose their own rights by design (see landlock.Rules).
func carvedAncestor(tree map[string][]landlock.Entry, eff []Rule, p string) bool {
	for _, e := range eff {
		if e.Path != p && mounts.Within(e.Path, p) {
			return true
		}
	}
	return false
}

// The library's accesses and the mount plan's are one enumeration in two
// packages: every value names the same thing in both.
func TestAccessAgreesWithMounts(t *testing.T) {
	for a := ReadOnly; a <= BlockDevice; a++ {
		if got, want := mountAccess(a).String(), a.String(); got != want {
			t.Errorf("Access %d: mounts calls it %q, the library %q", int(a), got, want)
		}
	}
	if s := mountAccess(BlockDevice + 1).String(); s != "Access(11)" {
		t.Errorf("mounts names an access the library has not: %s", s)
	}
}
