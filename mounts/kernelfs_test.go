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

// Every tree the plan clones gets a cover on each whole procfs or sysfs
// it carries, even where a later mount hides the copy (the kernel still
// counts it when a user namespace mounts a procfs of its own), for the
// host's root only; nsrun's own /proc and /sys lie on the root's, and a
// place a rule names without mounting is shown as asked.
func TestRevealCovers(t *testing.T) {
	id := func(string) (Identity, error) { return Identity{1, 2}, nil }
	kms := []KernelMount{
		{Path: "/proc", Dir: true, Reveals: true, Built: true},
		{Path: "/sys", Dir: true, Reveals: true, Built: true},
		{Path: "/dev/x", Dir: true, Reveals: true, Built: true},
		{Path: "/srv/chroot/proc", Dir: true, Reveals: true},
		{Path: "/srv/chroot/sys/fs/cgroup", Dir: true},
		{Path: "/srv/ns/net"},
	}
	ro := func(p string) Rule { return Rule{Path: p, Access: ReadOnly, Dir: true} }
	rw := func(p string) Rule { return Rule{Path: p, Access: ReadWrite, Dir: true} }
	for _, tc := range []struct {
		name  string
		rules []Rule
		want  map[string][]string // op path ("/" the root) -> covers
	}{
		{"the root", nil, map[string][]string{"/": {"dev/x", "srv/chroot/proc"}}},
		{"a writable bind hides the root's copy", []Rule{rw("/srv")},
			// and the pins of the cover over the place it shows carry it too
			map[string][]string{"/": {"dev/x", "srv/chroot/proc"}, "/srv": {"chroot/proc"}, "/srv/chroot": {"proc"}}},
		{"a bind of / carries the host's /proc and /sys", []Rule{{Path: "/mnt", Access: ReadWrite, Source: "/", Dir: true}},
			map[string][]string{"/": {"dev/x", "srv/chroot/proc"}, "/mnt": {"proc", "sys", "dev/x", "srv/chroot/proc"},
				"/mnt/srv": {"chroot/proc"}, "/mnt/srv/chroot": {"proc"}}},
		{"a rule naming the place without a mount", []Rule{ro("/srv/chroot/proc")}, map[string][]string{"/": {"dev/x"}}},
		{"a bind of the mount itself", []Rule{{Path: "/w", Access: ReadOnly, Source: "/srv/chroot/proc", Dir: true}},
			map[string][]string{"/": {"dev/x", "srv/chroot/proc"}}},
	} {
		for _, protect := range []bool{true, false} {
			plan, err := Make(Input{Rules: tc.rules, Identify: id, KernelMounts: kms, ProtectProc: protect})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got := map[string][]string{}
			if len(plan.Root.Covers) > 0 {
				got["/"] = plan.Root.Covers
			}
			for _, op := range plan.Ops {
				if len(op.Covers) > 0 {
					if op.Kind != OpBind {
						t.Errorf("%s: covers on %+v", tc.name, op)
					}
					got[op.Path] = append(got[op.Path], op.Covers...)
				}
			}
			want := tc.want
			if !protect {
				want = map[string][]string{}
			}
			if len(got) != len(want) {
				t.Errorf("%s (ProtectProc %v): covers %v, want %v", tc.name, protect, got, want)
				continue
			}
			for p, w := range want {
				if !sameSet(got[p], w) {
					t.Errorf("%s (ProtectProc %v): covers %v, want %v", tc.name, protect, got, want)
				}
			}
		}
	}
}
