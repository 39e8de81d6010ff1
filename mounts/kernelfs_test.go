package mounts

import (
	"reflect"
	"testing"
)

// A kernel filesystem a shown host tree carries is covered wherever that
// tree shows it, and only there.
func TestKernelCovers(t *testing.T) {
	id := func(string) (Identity, error) { return Identity{1, 2}, nil }
	kms := []KernelMount{
		{Path: "/srv/chroot/proc", Dir: true},
		{Path: "/srv/chroot/sys", Dir: true},
		{Path: "/srv/ns/net", Dir: false},
		{Path: "/proc", Dir: true},
		{Path: "/opt/secret/proc", Dir: true},
	}
	ro := func(p string) Rule { return Rule{Path: p, Access: ReadOnly, Dir: true} }
	rw := func(p string) Rule { return Rule{Path: p, Access: ReadWrite, Dir: true} }
	for _, tc := range []struct {
		name  string
		rules []Rule
		want  []string
	}{
		{"the root shows them", nil, []string{"/srv/chroot/proc", "/srv/chroot/sys", "/srv/ns/net", "/opt/secret/proc"}},
		{"a writable bind carries them", []Rule{rw("/srv")}, []string{"/srv/chroot/proc", "/srv/chroot/sys", "/srv/ns/net", "/opt/secret/proc"}},
		{"a bind elsewhere shows them there too", []Rule{{Path: "/w", Access: ReadWrite, Source: "/srv/chroot", Dir: true}},
			[]string{"/srv/chroot/proc", "/srv/chroot/sys", "/srv/ns/net", "/opt/secret/proc", "/w/proc", "/w/sys"}},
		{"a deny or a tmpfs above decides", []Rule{{Path: "/srv", Access: Deny, Dir: true}, {Path: "/opt", Access: Tmpfs, Dir: true}}, nil},
		{"a rule at the place decides", []Rule{ro("/srv/chroot/proc"), {Path: "/srv/ns/net", Access: Deny}},
			[]string{"/srv/chroot/sys", "/opt/secret/proc"}},
	} {
		in := Input{Rules: tc.rules, Identify: id, KernelMounts: kms}
		if tc.name == "a bind elsewhere shows them there too" || tc.name == "a writable bind carries them" {
			in.Rules = append(in.Rules, Rule{Path: "/", Access: ReadOnly, Dir: true})
		}
		plan, err := Make(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, op := range plan.Ops {
			if !op.Hidden {
				continue
			}
			got = append(got, op.Path)
			want := OpTmpfs
			if op.Path == "/srv/ns/net" {
				want = OpEmptyFile
			}
			if op.Kind != want || !op.ReadOnly || !op.Optional || op.Dir != (want == OpTmpfs) {
				t.Errorf("%s: %+v is not an empty read-only cover", tc.name, op)
			}
		}
		if !sameSet(got, tc.want) {
			t.Errorf("%s: covered %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A cover inside a writable tree holds its place as a deny does: the
// directories between are pinned.
func TestKernelCoversPinned(t *testing.T) {
	plan, err := Make(Input{Rules: []Rule{{Path: "/", Access: ReadWrite, Dir: true}},
		Identify:     func(string) (Identity, error) { return Identity{1, 2}, nil },
		KernelMounts: []KernelMount{{Path: "/srv/chroot/proc", Dir: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var pins []string
	for _, op := range plan.Ops {
		if op.Pin {
			pins = append(pins, op.Path)
		}
	}
	if !reflect.DeepEqual(pins, []string{"/srv", "/srv/chroot"}) {
		t.Errorf("pins %v", pins)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
