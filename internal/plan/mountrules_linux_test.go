package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/mounts"
)

// AddRule turns each kind of rule into the mount plan's input, and refuses
// what it cannot apply as a rule error naming the rule.
func TestAddRule(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	di, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	var in mounts.Input
	// A copy is read now, and must still be the file checked.
	if err := AddRule(&in, Rule{Path: file, Canon: "/etc/f", Host: file, Access: mounts.Copy, Info: fi}, "/"); err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 1 || in.Files[0].Content != "content" || in.Files[0].Path != "/etc/f" || !in.Files[0].Required {
		t.Errorf("copy: %+v", in.Files)
	}
	// A bind shown elsewhere names its source and identity.
	if err := AddRule(&in, Rule{Path: "/w", Canon: "/w", Host: dir, Access: mounts.ReadWrite, Dir: true, Info: di}, "/"); err != nil {
		t.Fatal(err)
	}
	if r := in.Rules[len(in.Rules)-1]; r.Source != dir || r.ID != Identity(di) || r.Access != mounts.ReadWrite {
		t.Errorf("bind: %+v", r)
	}
	// nsrun's /tmp is sticky and world-writable; its other tmpfs may be
	// left out where no mount point can be made.
	if err := AddRule(&in, Rule{Canon: "/tmp", Access: mounts.Tmpfs, Dir: true, Internal: true}, "/"); err != nil {
		t.Fatal(err)
	}
	if r := in.Rules[len(in.Rules)-1]; r.Mode != 0o1777 || r.Optional {
		t.Errorf("/tmp: %+v", r)
	}
	// Without an identity a bind is refused, naming the rule.
	err = AddRule(&in, Rule{Path: "/x", Canon: "/x", Access: mounts.ReadOnly, Dir: true, Source: 3}, "/")
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindRule || pe.Rule == nil || pe.Rule.Path != "/x" || pe.Rule.Source != 3 || !strings.Contains(err.Error(), "no device and inode") {
		t.Errorf("no identity: %v", err)
	}
	// A copy of a file swapped since it was checked is refused (the new
	// file exists beside the old one first: another inode).
	if err := os.WriteFile(file+".new", []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(file+".new", file); err != nil {
		t.Fatal(err)
	}
	if err := AddRule(&in, Rule{Path: file, Canon: "/etc/f", Host: file, Access: mounts.Copy, Info: fi}, "/"); err == nil || !strings.Contains(err.Error(), "another file") {
		t.Errorf("swapped copy: %v", err)
	}
}

func TestLookupHost(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    string
		want mounts.Found
	}{
		{dir, mounts.Found{Exists: true, Dir: true}},
		{dir + "/f", mounts.Found{Exists: true}},
		{dir + "/none/x", mounts.Found{Stop: dir + "/none"}},
		{dir + "/f/x", mounts.Found{Stop: dir + "/f", NotDir: true}},
		{dir + "/l", mounts.Found{Stop: dir + "/l", Symlink: true, Target: "f"}},
	} {
		got, err := LookupHost(c.p)
		if err != nil || got != c.want {
			t.Errorf("LookupHost(%s) = %+v, %v; want %+v", c.p, got, err, c.want)
		}
	}
}

// An overlay of a tree with mounts below it is refused (the kernel takes
// no such lower layer from a user namespace); "/" always has some.
func TestMountsBelow(t *testing.T) {
	if err := mountsBelow("/"); err == nil || !strings.Contains(err.Error(), "mounted below it") {
		t.Errorf("/: %v", err)
	}
	if err := mountsBelow(t.TempDir()); err != nil {
		t.Errorf("a fresh directory: %v", err)
	}
}
