package mounts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestMake(t *testing.T) {
	dir := func(p string, a Access) Rule { return Rule{Path: p, Access: a, Dir: true} }
	file := func(p string, a Access) Rule { return Rule{Path: p, Access: a} }
	for _, tc := range []struct {
		name  string
		rules []Rule
		want  []string // rendered ops after /dev and /proc
		err   string
	}{
		{name: "nothing", want: nil},
		{
			name:  "workspace in private tmp",
			rules: []Rule{dir("/tmp", Tmpfs), dir("/tmp/ws", ReadWrite)},
			want:  []string{"tmpfs /tmp 755 [ws/]", "bind /tmp/ws rw"},
		},
		{
			name:  "ro inside rw is mounted after it",
			rules: []Rule{dir("/w/.git", ReadOnly), dir("/w", ReadWrite)},
			want:  []string{"bind /w rw", "bind /w/.git ro"},
		},
		{
			name:  "ro that changes nothing is left out",
			rules: []Rule{dir("/usr", ReadOnly), dir("/usr/lib", ReadOnly), dir("/w", ReadWrite), dir("/w/.git", ReadOnly), dir("/w/.git/hooks", ReadOnly)},
			want:  []string{"bind /w rw", "bind /w/.git ro"},
		},
		{
			name:  "same path: last wins",
			rules: []Rule{dir("/w", ReadOnly), dir("/w", Tmpfs), dir("/v", Tmpfs), dir("/v", ReadWrite)},
			want:  []string{"bind /v rw", "tmpfs /w 755"},
		},
		{
			name:  "deny dir with a deeper grant gets its mount point",
			rules: []Rule{dir("/h/secrets", Deny), dir("/h/secrets/pub/docs", ReadOnly), file("/h/secrets/token", ReadWrite)},
			want:  []string{"tmpfs /h/secrets 555 ro [token pub/docs/]", "bind /h/secrets/token rw", "bind /h/secrets/pub/docs ro"},
		},
		{
			name:  "denied file",
			rules: []Rule{file("/etc/shadow", Deny)},
			want:  []string{"empty /etc/shadow"},
		},
		{
			name:  "mount points go to the nearest fresh filesystem only",
			rules: []Rule{dir("/a", Tmpfs), dir("/a/b", ReadWrite), dir("/a/b/c", ReadOnly)},
			want:  []string{"tmpfs /a 755 [b/]", "bind /a/b rw", "bind /a/b/c ro"},
		},
		{
			name:  "writable root",
			rules: []Rule{dir("/", ReadWrite)},
			want:  nil,
		},
		{name: "relative path", rules: []Rule{dir("w", ReadWrite)}, err: "not a clean absolute path"},
		{name: "unclean path", rules: []Rule{dir("/w/../x", ReadWrite)}, err: "not a clean absolute path"},
		{name: "proc", rules: []Rule{dir("/proc/sys", ReadWrite)}, err: "/proc is built by nsrun"},
		{name: "dev", rules: []Rule{dir("/dev", ReadOnly)}, err: "/dev is built by nsrun"},
		{name: "sys", rules: []Rule{dir("/sys/class", ReadOnly)}, err: "/sys is built by nsrun"},
		{name: "tmpfs on a file", rules: []Rule{file("/etc/hosts", Tmpfs)}, err: "not a directory"},
		{name: "deny root", rules: []Rule{dir("/", Deny)}, err: "the root can only be"},
		{name: "under a file", rules: []Rule{file("/f", ReadWrite), dir("/f/x", ReadOnly)}, err: "/f is a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Make(Input{Rules: tc.rules})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Root.Source != "/" || p.Root.Path != "/" {
				t.Errorf("root op: %+v", p.Root)
			}
			if p.Ops[0].Kind != OpDev || p.Ops[1].Kind != OpProc || p.Ops[2].Kind != OpSys || !p.Ops[2].ReadOnly {
				t.Fatalf("/dev, /proc and a read-only /sys must come first: %+v", p.Ops[:3])
			}
			var got []string
			for _, op := range p.Ops[3:] {
				got = append(got, render(op))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestMakeKeepsReadOnlyThatChangesSomething(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"another root", Input{Root: "/srv/root", Rules: []Rule{{Path: "/usr", Access: ReadOnly, Dir: true}}}},
		{"writable root", Input{Rules: []Rule{{Path: "/", Access: ReadWrite, Dir: true}, {Path: "/usr", Access: ReadOnly, Dir: true}}}},
		{"under a tmpfs", Input{Rules: []Rule{{Path: "/t", Access: Tmpfs, Dir: true}, {Path: "/t/x", Access: ReadOnly, Dir: true}}}},
		{"under a deny", Input{Rules: []Rule{{Path: "/d", Access: Deny, Dir: true}, {Path: "/d/x", Access: ReadOnly, Dir: true}}}},
	} {
		p, err := Make(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		last := p.Ops[len(p.Ops)-1]
		if last.Kind != OpBind || !last.ReadOnly || len(p.Unchanged) != 0 {
			t.Errorf("%s: the read-only bind was dropped: %+v", tc.name, p)
		}
	}
	p, _ := Make(Input{Rules: []Rule{{Path: "/usr", Access: ReadOnly, Dir: true}}})
	if !reflect.DeepEqual(p.Unchanged, []string{"/usr"}) {
		t.Errorf("unchanged: %v", p.Unchanged)
	}
}

// HostProc replaces the fresh procfs, read-only; nothing else changes.
func TestMakeHostProc(t *testing.T) {
	plan, err := Make(Input{HostProc: true, ProtectProc: true})
	if err != nil {
		t.Fatal(err)
	}
	want := Op{Kind: OpHostProc, Path: "/proc", Source: "/proc", Dir: true, ReadOnly: true}
	if len(plan.Ops) != 3+len(hidden()) || !reflect.DeepEqual(plan.Ops[1], want) || plan.Ops[0].Kind != OpDev || plan.Ops[2].Kind != OpSys {
		t.Errorf("ops %+v", plan.Ops)
	}
	// HostSys replaces the fresh sysfs the same way.
	plan, err = Make(Input{HostSys: true})
	if err != nil {
		t.Fatal(err)
	}
	want = Op{Kind: OpHostSys, Path: "/sys", Source: "/sys", Dir: true, ReadOnly: true}
	if len(plan.Ops) != 3 || !reflect.DeepEqual(plan.Ops[2], want) || plan.Ops[1].Kind != OpProc {
		t.Errorf("ops %+v", plan.Ops)
	}
}

// A sandbox of the host's root gets the kernel's root-only reports hidden,
// in a host /proc as in a fresh one, and wherever its rules put the rest;
// another user's sandbox gets none of it (the files' modes refuse it, and
// a nested sandbox needs /proc and /sys fully visible).
func TestMakeProtectProcHides(t *testing.T) {
	rules := []Rule{{Path: "/", Access: ReadWrite, Dir: true}, {Path: "/w/ro", Access: ReadOnly, Dir: true}}
	for _, in := range []Input{
		{ProtectProc: true},
		{ProtectProc: true, HostProc: true, HostSys: true},
		{ProtectProc: true, Rules: rules, Identify: func(string) (Identity, error) { return Identity{1, 2}, nil },
			Lookup: func(h string) (Found, error) {
				if Within(h, "/proc") && h != "/proc" || Within(h, "/sys") && h != "/sys" {
					t.Errorf("looked up %s on the host", h)
				}
				return Found{Exists: true, Dir: true}, nil
			}},
	} {
		plan, err := Make(in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, op := range plan.Ops {
			if !Within(op.Path, "/proc") && !Within(op.Path, "/sys") || op.Path == "/proc" || op.Path == "/sys" {
				continue
			}
			if !op.ReadOnly || !op.Optional || op.Pin || op.Dir != (op.Kind == OpTmpfs) || op.Dir && op.Mode != 0o555 || !op.Dir && op.Kind != OpEmptyFile {
				t.Errorf("%+v: not an empty read-only cover, skipped where missing", op)
			}
			got = append(got, op.Path)
		}
		want := []string{"/proc/kpagecgroup", "/proc/kpagecount", "/proc/kpageflags", "/proc/latency_stats",
			"/proc/pagetypeinfo", "/proc/sched_debug", "/proc/slabinfo", "/proc/timer_list", "/proc/vmallocinfo",
			"/sys/devices/virtual/powercap", "/sys/firmware", "/sys/kernel/mm/page_idle", "/sys/kernel/slab", "/sys/kernel/vmcoreinfo"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: hidden %v", in, got)
		}
		// Nothing under /proc or /sys is pinned or made on the host.
		if len(plan.Created) != 0 {
			t.Errorf("created %v", plan.Created)
		}
	}
	plan, err := Make(Input{Rules: rules, Identify: func(string) (Identity, error) { return Identity{1, 2}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range plan.Ops {
		if Within(op.Path, "/proc") && op.Path != "/proc" || Within(op.Path, "/sys") && op.Path != "/sys" {
			t.Errorf("without ProtectProc: %+v", op)
		}
	}
}

func TestTmpfsSize(t *testing.T) {
	p, err := Make(Input{TmpfsSize: 1 << 20, Rules: []Rule{
		{Path: "/tmp", Access: Tmpfs, Dir: true}, {Path: "/d", Access: Deny, Dir: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range p.Ops {
		want := uint64(0)
		if op.Path == "/tmp" || op.Path == "/dev" { // /dev's size is its shm's
			want = 1 << 20
		}
		if op.Size != want {
			t.Errorf("%s: size %d, want %d", op.Path, op.Size, want)
		}
	}
}

func TestMakeRootAccess(t *testing.T) {
	p, err := Make(Input{Root: "/srv/root", Rules: []Rule{{Path: "/", Access: ReadWrite, Dir: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root.ReadOnly || p.Root.Source != "/srv/root" {
		t.Errorf("root: %+v", p.Root)
	}
	p, _ = Make(Input{})
	if !p.Root.ReadOnly {
		t.Error("the default root must be read-only")
	}
}

// Planning must stay linear in the number of rules.
func TestMakeManyRules(t *testing.T) {
	rules := []Rule{{Path: "/data", Access: ReadWrite, Dir: true}}
	for i := 0; i < 5000; i++ {
		rules = append(rules, Rule{Path: fmt.Sprintf("/data/d%d", i), Access: ReadOnly, Dir: true})
	}
	p, err := Make(Input{Rules: rules})
	if err != nil || len(p.Ops) != 5004 {
		t.Fatalf("%v, %d ops", err, len(p.Ops))
	}
}

func TestWithinAndDepth(t *testing.T) {
	for _, tc := range []struct {
		p, base string
		want    bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a", "/", true}, {"/", "/a", false},
	} {
		if got := Within(tc.p, tc.base); got != tc.want {
			t.Errorf("Within(%q, %q) = %v", tc.p, tc.base, got)
		}
	}
	if Depth("/") != 0 || Depth("/a") != 1 || Depth("/a/b/c") != 3 {
		t.Error("Depth")
	}
}

func TestMakeFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []Rule
		files []File
		want  []string
		err   string
	}{
		{
			name:  "over the root's file, or in a tmpfs of the plan",
			rules: []Rule{{Path: "/run", Access: Tmpfs, Dir: true}, {Path: "/etc", Access: ReadOnly, Dir: true}},
			files: []File{{Path: "/etc/hosts", Content: "h"}, {Path: "/run/resolve/resolv.conf", Content: "r"}},
			want:  []string{"tmpfs /run 755 [resolve/resolv.conf]", `file /etc/hosts "h" if there`, `file /run/resolve/resolv.conf "r"`},
		},
		{
			name:  "over a rule at the same path, last",
			rules: []Rule{{Path: "/etc/hosts", Access: Deny}, {Path: "/w", Access: ReadWrite, Dir: true}},
			files: []File{{Path: "/etc/hosts", Content: "h"}},
			want:  []string{"bind /w rw", "empty /etc/hosts", `file /etc/hosts "h" if there`},
		},
		{name: "not in a denied directory's tmpfs", rules: []Rule{{Path: "/etc", Access: Deny, Dir: true}},
			files: []File{{Path: "/etc/hosts"}}, want: []string{"tmpfs /etc 555 ro", `file /etc/hosts "" if there`}},
		{name: "relative", files: []File{{Path: "etc/hosts"}}, err: "not a clean absolute path"},
		{name: "under /proc", files: []File{{Path: "/proc/x"}}, err: "built by nsrun"},
		{name: "too large", files: []File{{Path: "/etc/x", Content: strings.Repeat("x", maxFile+1)}}, err: "over"},
		{name: "on a directory rule", rules: []Rule{{Path: "/etc/x", Access: Tmpfs, Dir: true}}, files: []File{{Path: "/etc/x"}}, err: "a directory rule"},
		{name: "below a file rule", rules: []Rule{{Path: "/etc/x", Access: ReadWrite}}, files: []File{{Path: "/etc/x/y"}}, err: "is a file"},
	} {
		plan, err := Make(Input{Rules: tc.rules, Files: tc.files})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, op := range plan.Ops[3:] {
			got = append(got, render(op))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func render(op Op) string {
	var s string
	switch op.Kind {
	case OpBind:
		s = "bind " + op.Path + map[bool]string{true: " ro", false: " rw"}[op.ReadOnly]
		if op.Source != op.Path {
			s += " from " + op.Source
		}
	case OpTmpfs:
		s = fmt.Sprintf("tmpfs %s %o", op.Path, op.Mode)
		if op.ReadOnly {
			s += " ro"
		}
		if len(op.Mountpoints) > 0 {
			var mps []string
			for _, mp := range op.Mountpoints {
				mps = append(mps, mp.Rel+map[bool]string{true: "/", false: ""}[mp.Dir])
			}
			s += " [" + strings.Join(mps, " ") + "]"
		}
	case OpEmptyFile:
		s = "empty " + op.Path
	case OpDev:
		s = "dev " + op.Path
	case OpProc:
		s = "proc " + op.Path
	case OpSys:
		s = "sys " + op.Path
	case OpFile:
		s = fmt.Sprintf("file %s %q", op.Path, op.Content)
		if op.Optional {
			s += " if there"
		}
	default:
		s = fmt.Sprintf("op%d %s", op.Kind, op.Path)
	}
	return s
}

func ExampleMake() {
	plan, err := Make(Input{Rules: []Rule{
		{Path: "/tmp", Access: Tmpfs, Dir: true, Mode: 0o1777},
		{Path: "/home/me/ws", Access: ReadWrite, Dir: true},
		{Path: "/home/me/ws/.git", Access: ReadOnly, Dir: true},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("/ from", plan.Root.Source, "read-only:", plan.Root.ReadOnly)
	for _, op := range plan.Ops {
		fmt.Println(render(op))
	}
	// Output:
	// / from / read-only: true
	// dev /dev
	// proc /proc
	// sys /sys
	// tmpfs /tmp 1777
	// bind /home/me/ws rw
	// bind /home/me/ws/.git ro
}

func TestMakeRecreatesLinksOnlyInWritableTmpfs(t *testing.T) {
	rules := []Rule{
		{Path: "/tmp", Access: Tmpfs, Dir: true},
		{Path: "/tmp/real/ws", Access: ReadWrite, Dir: true},
		{Path: "/d", Access: Deny, Dir: true},
		{Path: "/d/real", Access: ReadWrite, Dir: true},
		{Path: "/home/real", Access: ReadWrite, Dir: true},
	}
	links := []Link{
		{Path: "/tmp/link", Target: "real"},
		{Path: "/tmp/link", Target: "again"}, // the same link twice
		{Path: "/tmp/real", Target: "x"},     // a rule lies below it
		{Path: "/d/link", Target: "real"},    // in a --deny directory
		{Path: "/home/link", Target: "real"}, // the host's link is visible
		{Path: "/tmp/../etc", Target: "x"},   // not clean
	}
	p, err := Make(Input{Rules: rules, Links: links})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range p.Ops {
		var got []Mountpoint
		for _, mp := range op.Mountpoints {
			if mp.Link != "" {
				got = append(got, mp)
			}
		}
		var want []Mountpoint
		if op.Path == "/tmp" {
			want = []Mountpoint{{Rel: "link", Link: "real"}}
			if last := op.Mountpoints[len(op.Mountpoints)-1]; last.Link == "" {
				t.Errorf("/tmp: the link must come after every directory: %+v", op.Mountpoints)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: links %+v, want %+v", op.Path, got, want)
		}
	}
}

func TestMakePinsLinksInWritableHostDirectories(t *testing.T) {
	id := Identity{Dev: 1, Ino: 2}
	rules := []Rule{
		{Path: "/tmp", Access: Tmpfs, Dir: true},
		{Path: "/ws", Access: ReadWrite, Dir: true, ID: id},
		{Path: "/ws/real-git", Access: ReadOnly, Dir: true, ID: id},
		{Path: "/ws/ro", Access: ReadOnly, Dir: true, ID: id},
		{Path: "/secrets", Access: Deny, Dir: true},
	}
	pins := []Link{
		{Path: "/ws/.git", Target: "real-git", ID: id},    // pinned
		{Path: "/ws/a/b/link", Target: "../../x", ID: id}, // pinned: deeper in the writable bind
		{Path: "/ws/.git", Target: "real-git", ID: id},    // the same link twice
		{Path: "/ws/ro/link", Target: "x", ID: id},        // read-only already
		{Path: "/tmp/link", Target: "x", ID: id},          // private tmpfs
		{Path: "/secrets/link", Target: "x", ID: id},      // hidden
		{Path: "/etc/link", Target: "x", ID: id},          // read-only root
		{Path: "/ws/no-identity", Target: "x"},            // cannot be checked
		{Path: "/ws/../etc/x", Target: "x", ID: id},       // not clean
	}
	identify := func(string) (Identity, error) { return id, nil }
	p, err := Make(Input{Rules: rules, LinksToPin: pins, Identify: identify})
	if err != nil {
		t.Fatal(err)
	}
	var got, dirs []string
	for _, op := range p.Ops {
		if op.Pin {
			dirs = append(dirs, op.Path)
		}
		if op.Kind == OpPinLink {
			if op.Source != op.Path || op.ID != id || !op.ReadOnly {
				t.Errorf("pin %+v", op)
			}
			got = append(got, op.Path)
		}
	}
	if want := []string{"/ws/.git", "/ws/a/b/link"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pinned %v, want %v", got, want)
	}
	// The directories between the writable bind and a pinned link are
	// pinned too: renaming one would carry the link away.
	if want := []string{"/ws/a", "/ws/a/b"}; !reflect.DeepEqual(dirs, want) {
		t.Errorf("pinned directories %v, want %v", dirs, want)
	}
	// Under a writable root, a link anywhere is pinned.
	p, err = Make(Input{Rules: []Rule{{Path: "/", Access: ReadWrite, Dir: true}}, LinksToPin: []Link{{Path: "/etc/link", ID: id}}, Identify: identify})
	if err != nil || p.Ops[len(p.Ops)-1].Kind != OpPinLink {
		t.Errorf("writable root: %v %+v", err, p.Ops)
	}
}

func TestMakeConsoleLinkOnlyWithATerminal(t *testing.T) {
	for _, console := range []bool{false, true} {
		p, err := Make(Input{Console: console})
		if err != nil {
			t.Fatal(err)
		}
		dev := p.Ops[0]
		var want []Mountpoint
		if console {
			want = []Mountpoint{{Rel: "console", Link: "pts/0"}}
		}
		if dev.Kind != OpDev || !reflect.DeepEqual(dev.Mountpoints, want) {
			t.Errorf("Console %v: /dev op %+v, want mount points %+v", console, dev, want)
		}
	}
}

// A read-only or deny rule deeper than one level under a writable host tree
// gets every directory in between pinned, once, parents first, with the
// identity the caller gives.
func TestMakePins(t *testing.T) {
	dir := func(p string, a Access) Rule { return Rule{Path: p, Access: a, Dir: true} }
	file := func(p string, a Access) Rule { return Rule{Path: p, Access: a} }
	for _, tc := range []struct {
		name  string
		rules []Rule
		pins  []string
		want  []string
	}{
		{
			name:  "ro two levels down",
			rules: []Rule{dir("/ws", ReadWrite), dir("/ws/p/.git", ReadOnly)},
			want:  []string{"bind /ws rw", "pin /ws/p", "bind /ws/p/.git ro"},
		},
		{
			name:  "deny three levels down",
			rules: []Rule{dir("/ws", ReadWrite), file("/ws/a/b/secret", Deny)},
			want:  []string{"bind /ws rw", "pin /ws/a", "pin /ws/a/b", "empty /ws/a/b/secret"},
		},
		{
			name:  "a directory shared by many rules is pinned once",
			rules: []Rule{dir("/ws", ReadWrite), dir("/ws/r/d1", ReadOnly), dir("/ws/r/d2", ReadOnly), dir("/ws/r/s/d3", Deny)},
			want:  []string{"bind /ws rw", "pin /ws/r", "bind /ws/r/d1 ro", "bind /ws/r/d2 ro", "pin /ws/r/s", "tmpfs /ws/r/s/d3 555 ro"},
		},
		{
			name:  "a rule one level down needs nothing",
			rules: []Rule{dir("/ws", ReadWrite), dir("/ws/.git", ReadOnly), file("/ws/key", Deny)},
			want:  []string{"bind /ws rw", "bind /ws/.git ro", "empty /ws/key"},
		},
		{
			name:  "under a read-only bind nothing moves",
			rules: []Rule{dir("/ws", ReadWrite), dir("/ws/ro", ReadOnly), dir("/ws/ro/a/rw", ReadWrite), dir("/ws/ro/a/rw/b/c", ReadOnly)},
			want:  []string{"bind /ws rw", "bind /ws/ro ro", "bind /ws/ro/a/rw rw", "pin /ws/ro/a/rw/b", "bind /ws/ro/a/rw/b/c ro"},
		},
		{
			name:  "a tmpfs is not the host's",
			rules: []Rule{dir("/t", Tmpfs), dir("/t/a/b", ReadOnly)},
			want:  []string{"tmpfs /t 755 [a/b/]", "bind /t/a/b ro"},
		},
		{
			name:  "writable root",
			rules: []Rule{dir("/", ReadWrite), dir("/home/me/.ssh", Deny)},
			want:  []string{"pin /home", "pin /home/me", "tmpfs /home/me/.ssh 555 ro"},
		},
		{
			name:  "extra pins and the directories above them",
			rules: []Rule{dir("/ws", ReadWrite), dir("/ws/.git/config", ReadOnly)},
			pins:  []string{"/ws/.git", "/ws/sub/.git", "/ro/x"},
			want:  []string{"bind /ws rw", "pin /ws/.git", "pin /ws/sub", "bind /ws/.git/config ro", "pin /ws/sub/.git"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			id := func(p string) (Identity, error) {
				asked = append(asked, p)
				return Identity{Dev: 1, Ino: uint64(len(p))}, nil
			}
			p, err := Make(Input{Rules: tc.rules, Pins: tc.pins, Identify: id})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range p.Ops[3:] {
				s := render(op)
				if op.Pin {
					s = "pin " + op.Path
					if op.Kind != OpBind || op.ReadOnly || !op.Dir || op.Source != op.Path || op.ID.Ino != uint64(len(op.Path)) {
						t.Errorf("pin %+v", op)
					}
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if len(asked) != strings.Count(strings.Join(tc.want, "\n"), "pin ") {
				t.Errorf("identities asked for %q", asked)
			}
		})
	}
	// A writable root of another directory: its directories are pinned
	// from it, not from the host.
	p, err := Make(Input{Root: "/srv/root", Rules: []Rule{dir("/", ReadWrite), dir("/a/b", ReadOnly)},
		Identify: func(string) (Identity, error) { return Identity{Dev: 1, Ino: 1}, nil }})
	if err != nil || len(p.Ops) != 5 || !p.Ops[3].Pin || p.Ops[3].Path != "/a" || p.Ops[3].Source != "/srv/root/a" {
		t.Errorf("pins of another root: %v %+v", err, p.Ops)
	}
	_, err = Make(Input{Rules: []Rule{dir("/ws", ReadWrite), dir("/ws/p/.git", ReadOnly)},
		Identify: func(string) (Identity, error) { return Identity{}, fmt.Errorf("is a symlink") }})
	if err == nil || !strings.Contains(err.Error(), "pin /ws/p: is a symlink") {
		t.Errorf("identity error: %v", err)
	}
	if _, err := Make(Input{Rules: []Rule{dir("/ws", ReadWrite), dir("/ws/p/.git", ReadOnly)}}); err == nil {
		t.Error("pins without a way to identify them must fail")
	}
}

// 1,000 read-only rules each in its own directory cost 1,000 pins, and
// planning stays linear.
func TestMakeManyPins(t *testing.T) {
	rules := []Rule{{Path: "/ws", Access: ReadWrite, Dir: true}}
	for i := 0; i < 5000; i++ {
		rules = append(rules, Rule{Path: fmt.Sprintf("/ws/r%d/.git", i), Access: ReadOnly, Dir: true})
	}
	p, err := Make(Input{Rules: rules, Identify: func(string) (Identity, error) { return Identity{Dev: 1, Ino: 2}, nil }})
	if err != nil || len(p.Ops) != 3+1+2*5000 {
		t.Fatalf("%v, %d ops", err, len(p.Ops))
	}
}
