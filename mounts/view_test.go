package mounts

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"
)

// fakeHost is a host tree for Lookup: each path a directory ("/d/"), a
// file ("/f") or a symlink ("/l -> target").
type fakeHost map[string]string

func (h fakeHost) lookup(p string) (Found, error) {
	if p == "/" {
		return Found{Exists: true, Dir: true}, nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := ""
	for i, c := range parts {
		cur += "/" + c
		kind, ok := h[cur]
		switch {
		case !ok:
			return Found{Stop: cur}, nil
		case strings.HasPrefix(kind, "-> "):
			return Found{Stop: cur, Symlink: true, Target: strings.TrimPrefix(kind, "-> ")}, nil
		case kind == "file" && i < len(parts)-1:
			return Found{Stop: cur, NotDir: true}, nil
		case kind == "error":
			return Found{}, errors.New("permission denied")
		}
	}
	return Found{Exists: true, Dir: h[p] == "dir"}, nil
}

// host: a root with /etc, /etc/hosts, /usr/share, /lib -> usr/lib, /srv/img
// (an image with /bin -> usr/bin and /usr), /ws (writable) and /data.
var host = fakeHost{
	"/etc": "dir", "/etc/hosts": "file", "/usr": "dir", "/usr/share": "dir", "/lib": "-> usr/lib",
	"/dev": "dir", "/proc": "dir", "/sys": "dir", "/tmp": "dir", "/ws": "dir", "/ws/sub": "dir", "/data": "dir", "/data/x": "file",
	"/srv": "dir", "/srv/img": "dir", "/srv/img/usr": "dir", "/srv/img/bin": "-> usr/bin", "/srv/img/etc": "dir",
	"/secret": "error",
}

func renderAll(p *Plan) []string {
	var out []string
	if len(p.Root.Mirror) > 0 {
		out = append(out, "root mirror "+mirrorList(p.Root.Mirror))
	}
	for _, op := range p.Ops {
		s := render(op)
		switch op.Kind {
		case OpMirror:
			s = "mirror " + op.Path
		case OpOverlay:
			s = "overlay " + op.Path
			if len(op.Mountpoints) > 0 {
				s += " [" + mirrorList(op.Mountpoints) + "]"
			}
		}
		if len(op.Mirror) > 0 && op.Kind != OpMirror {
			s += " +mirror"
		}
		if len(op.Mirror) > 0 {
			s += " [" + mirrorList(op.Mirror) + "]"
		}
		out = append(out, s)
	}
	return out
}

func mirrorList(mps []Mountpoint) string {
	var s []string
	for _, mp := range mps {
		e := mp.Rel
		switch {
		case mp.Link != "":
			e += "->" + mp.Link
		case mp.Dir:
			e += "/"
		}
		s = append(s, e)
	}
	return strings.Join(s, " ")
}

// A mount point the tree shown there lacks is made in a mirror of its
// deepest existing directory when that tree is read-only, in a tmpfs or
// overlay of the plan's own, and refused where it would be made on the
// host.
func TestMakeMountpoints(t *testing.T) {
	dir := func(p string, a Access) Rule { return Rule{Path: p, Access: a, Dir: true} }
	bind := func(p, src string, a Access) Rule { return Rule{Path: p, Source: src, Access: a, Dir: true} }
	for _, tc := range []struct {
		name  string
		root  string
		rules []Rule
		files []File
		want  []string // ops after /dev, /proc, /sys (and the root's mirror first)
		err   string
	}{
		{
			name:  "a DEST at the top of the host root",
			rules: []Rule{bind("/work", "/data", ReadWrite)},
			want:  []string{"root mirror work/", "bind /work rw from /data"},
		},
		{
			name:  "a deep DEST: the mirror at the deepest directory there, before what goes in it",
			rules: []Rule{bind("/usr/share/nsrun/a", "/data", ReadOnly), bind("/usr/share/nsrun/b", "/data", ReadOnly), dir("/usr/share/other", Directory)},
			want:  []string{"mirror /usr/share [other/ nsrun/a/ nsrun/b/]", "bind /usr/share/nsrun/a ro from /data", "bind /usr/share/nsrun/b ro from /data"},
		},
		{
			name:  "under a read-only bind of another place: mirrored in it",
			rules: []Rule{bind("/opt/d", "/data", ReadOnly), {Path: "/opt/d/new/y", Source: "/etc/hosts", Access: ReadOnly}},
			want:  []string{"root mirror opt/d/", "bind /opt/d ro from /data +mirror [new/y]", "bind /opt/d/new/y ro from /etc/hosts"},
		},
		{
			name:  "an existing DEST, and --bind A A: nothing to make",
			rules: []Rule{bind("/etc", "/data", ReadOnly), dir("/ws", ReadWrite), dir("/ws/sub", Directory)},
			want:  []string{"bind /etc ro from /data", "bind /ws rw"},
		},
		{
			name:  "a symlink and a directory of the plan's own, links last",
			rules: []Rule{{Path: "/usr/lib64", Access: Symlink, Target: "lib"}, dir("/usr/zz", Directory)},
			want:  []string{"mirror /usr [zz/ lib64->lib]"},
		},
		{
			name:  "in a tmpfs of the plan: its own mount points",
			rules: []Rule{dir("/tmp", Tmpfs), bind("/tmp/a/b", "/data", ReadWrite), {Path: "/tmp/l", Access: Symlink, Target: "/etc"}},
			want:  []string{"tmpfs /tmp 755 [a/b/ l]", "bind /tmp/a/b rw from /data"},
		},
		{
			name:  "under a private overlay: made in it",
			rules: []Rule{dir("/ws", Overlay), bind("/ws/new/x", "/data", ReadOnly)},
			want:  []string{"overlay /ws [new/x/]", "bind /ws/new/x ro from /data"},
		},
		{
			name:  "an image lacking /dev, /proc, /sys, /tmp and a DEST",
			root:  "/srv/img",
			rules: []Rule{{Path: "/tmp", Access: Tmpfs, Dir: true, Mode: 0o1777}, {Path: "/run", Access: Tmpfs, Dir: true, Optional: true}, bind("/work", "/data", ReadWrite)},
			want:  []string{"root mirror dev/ proc/ sys/ tmp/ work/", "tmpfs /tmp 1777", "bind /work rw from /data"},
		},
		{
			name:  "a file of nsrun's over one the image lacks, one in a writable place left out",
			root:  "/srv/img",
			rules: []Rule{{Path: "/", Access: ReadOnly, Dir: true}, dir("/ws", ReadWrite)},
			files: []File{{Path: "/etc/passwd", Content: "p"}, {Path: "/ws/f", Content: "w"}},
			want:  []string{"root mirror dev/ proc/ sys/ ws/", "bind /ws rw", "mirror /etc [passwd]", `file /etc/passwd "p"`},
		},
		{name: "missing in a writable bind", rules: []Rule{dir("/ws", ReadWrite), bind("/ws/new", "/data", ReadOnly)},
			err: "ro /ws/new: /ws/new does not exist inside the sandbox, and nsrun makes nothing in the writable /ws"},
		{name: "missing in a writable root", rules: []Rule{dir("/", ReadWrite), bind("/new", "/data", ReadOnly)}, err: "the writable /"},
		{
			name:  "under a kept overlay: made in its layer",
			rules: []Rule{{Path: "/ws", Access: Overlay, Dir: true, Upper: "/k/1"}, bind("/ws/new", "/data", ReadOnly)},
			want:  []string{"overlay /ws [new/]", "bind /ws/new ro from /data"},
		},
		{name: "a required file in a writable bind", rules: []Rule{dir("/ws", ReadWrite)}, files: []File{{Path: "/ws/f", Required: true}}, err: "file /ws/f"},
		{name: "through a symlink", rules: []Rule{bind("/lib/x", "/data", ReadOnly)}, err: "/lib is a symlink inside the sandbox (to usr/lib)"},
		{name: "through an image's symlink", root: "/srv/img", rules: []Rule{bind("/bin/x", "/data", ReadOnly)}, err: "/bin is a symlink inside the sandbox (to usr/bin)"},
		{name: "below a file", rules: []Rule{bind("/etc/hosts/x", "/data", ReadOnly)}, err: "/etc/hosts is a file inside the sandbox"},
		{name: "a directory onto a file", rules: []Rule{bind("/etc/hosts", "/data", ReadOnly)}, err: "a file is there inside the sandbox, and this is a directory"},
		{name: "a symlink where one is", rules: []Rule{{Path: "/lib", Access: Symlink, Target: "x"}}, err: "a symlink to usr/lib is there"},
		{name: "a symlink where a directory is", rules: []Rule{{Path: "/etc", Access: Symlink, Target: "x"}}, err: "a directory is there"},
		{name: "a directory where a file is", rules: []Rule{{Path: "/etc/hosts", Access: Directory, Dir: true}}, err: "a file is there"},
		{name: "below a symlink of the plan", rules: []Rule{{Path: "/l", Access: Symlink, Target: "/etc"}, bind("/l/x", "/data", ReadOnly)}, err: "/l is a symlink of the plan"},
		{name: "a host it cannot look at", rules: []Rule{bind("/secret/x", "/data", ReadOnly)}, err: "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Make(Input{Root: tc.root, Rules: tc.rules, Files: tc.files, Lookup: host.lookup})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				var pe *PlanError
				if !errors.As(err, &pe) {
					t.Errorf("%T is no PlanError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := renderAll(p)
			var fixed []string
			if len(got) > 0 && strings.HasPrefix(got[0], "root mirror") {
				fixed, got = got[:1], got[1:]
			}
			if len(got) < 3 || got[0] != "dev /dev" || got[1] != "proc /proc" || got[2] != "sys /sys" {
				t.Fatalf("the fixed ops: %q", got)
			}
			got = append(fixed, got[3:]...)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// What the plan makes is listed, and files it cannot place are left out
// by name.
func TestMakeCreatedAndLeftOut(t *testing.T) {
	p, err := Make(Input{Rules: []Rule{{Path: "/ws", Access: ReadWrite, Dir: true}, {Path: "/new", Source: "/data", Access: ReadOnly, Dir: true}},
		Files: []File{{Path: "/ws/passwd", Content: "x"}, {Path: "/etc/nsrun", Content: "y"}}, Lookup: host.lookup})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Created, []string{"/new", "/etc/nsrun"}) || !reflect.DeepEqual(p.LeftOut, []string{"/ws/passwd"}) {
		t.Errorf("created %q, left out %q", p.Created, p.LeftOut)
	}
}

// Lookup is asked only where a mount point may be missing: a bind of its
// own place shows its own source, which the caller checked.
func TestMakeLooksOnlyWhereNeeded(t *testing.T) {
	var asked []string
	look := func(p string) (Found, error) {
		asked = append(asked, p)
		return host.lookup(p)
	}
	var rules []Rule
	for i := 0; i < 100; i++ {
		rules = append(rules, Rule{Path: fmt.Sprintf("/ws/r%d", i), Access: ReadOnly, Dir: true})
	}
	rules = append(rules, Rule{Path: "/ws", Access: ReadWrite, Dir: true})
	if _, err := Make(Input{Rules: rules, Lookup: look, Identify: func(string) (Identity, error) { return Identity{Dev: 1, Ino: 1}, nil }}); err != nil {
		t.Fatal(err)
	}
	for _, p := range asked {
		if path.Dir(p) == "/ws" {
			t.Fatalf("looked at %s, a rule's own source", p)
		}
	}
	if len(asked) > 3 {
		t.Errorf("asked %d times: %q", len(asked), asked)
	}
}

func TestDevices(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Node
		want []string
		err  string
	}{
		{name: "nested and own", in: []Node{{Path: "/dev/kvm", Source: "/dev/kvm"}, {Path: "/dev/dri/card0", Source: "/dev/dri/card0"}, {Path: "/dev/null", Source: "/dev/null"}},
			want: []string{"kvm", "dri/card0"}},
		{name: "twice the same", in: []Node{{Path: "/dev/kvm", Source: "/dev/kvm"}, {Path: "/dev/kvm", Source: "/dev/kvm"}}, want: []string{"kvm"}},
		{name: "two at one place", in: []Node{{Path: "/dev/x", Source: "/dev/kvm"}, {Path: "/dev/x", Source: "/dev/zero"}}, err: "given from /dev/kvm and from /dev/zero"},
		{name: "another at an own name", in: []Node{{Path: "/dev/null", Source: "/dev/kvm"}}, err: "the sandbox's own"},
		{name: "in pts", in: []Node{{Path: "/dev/pts/3", Source: "/dev/kvm"}}, err: "/dev/pts is the sandbox's own"},
		{name: "outside /dev", in: []Node{{Path: "/opt/kvm", Source: "/dev/kvm"}}, err: "not a path under /dev"},
		{name: "below a device", in: []Node{{Path: "/dev/a", Source: "/dev/kvm"}, {Path: "/dev/a/b", Source: "/dev/zero"}}, err: "/dev/a is a device"},
	} {
		got, err := devices(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		var paths []string
		for _, d := range got {
			paths = append(paths, d.Path)
		}
		if err != nil || !reflect.DeepEqual(paths, tc.want) {
			t.Errorf("%s: %q %v, want %q", tc.name, paths, err, tc.want)
		}
	}
	// The plan makes their entries in its /dev.
	p, err := Make(Input{Devices: []Node{{Path: "/dev/dri/renderD128", Source: "/dev/dri/renderD128"}}})
	if err != nil || len(p.Ops[0].Devices) != 1 || !reflect.DeepEqual(p.Ops[0].Mountpoints, []Mountpoint{{Rel: "dri/renderD128"}}) {
		t.Errorf("/dev op: %v %+v", err, p.Ops[0])
	}
}

// A file of nsrun's own is left out, never an error, where the tree has a
// symlink or a directory at its path.
func TestMakeFileOfOwnOverASymlink(t *testing.T) {
	h := fakeHost{"/etc": "dir", "/etc/passwd": "-> ../usr/passwd", "/etc/group": "dir", "/dev": "dir", "/proc": "dir", "/sys": "dir"}
	p, err := Make(Input{Files: []File{{Path: "/etc/passwd"}, {Path: "/etc/group"}}, Lookup: h.lookup})
	if err != nil || !reflect.DeepEqual(p.LeftOut, []string{"/etc/passwd", "/etc/group"}) || len(p.Ops) != 3 {
		t.Errorf("%v, left out %q, ops %d", err, p.LeftOut, len(p.Ops))
	}
	if _, err := Make(Input{Files: []File{{Path: "/etc/passwd", Required: true}}, Lookup: h.lookup}); err == nil {
		t.Error("a required file over a symlink")
	}
}
