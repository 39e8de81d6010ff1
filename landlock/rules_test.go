package landlock

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

const rw = AllFS &^ ResolveUnix

func fakeFS(tree map[string][]Entry) Lister {
	return func(dir string) ([]Entry, error) {
		e, ok := tree[dir]
		if !ok {
			return nil, fmt.Errorf("list %s: not in the fake tree", dir)
		}
		return e, nil
	}
}

func render(rules []PathRule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Path+" "+r.Access.String())
	}
	sort.Strings(out)
	return out
}

// Without carving, a grant that adds nothing to what its ancestors give
// (read-only inside writable, read-only under the read-only root) makes no
// rule: Landlock would give its path the ancestors' rights anyway.
func TestRulesWithoutCarving(t *testing.T) {
	got, err := Rules([]Grant{
		{Path: "/", Access: ReadExec, Dir: true},
		{Path: "/w", Access: rw, Dir: true},
		{Path: "/w/.git", Access: ReadExec, Dir: true},
		{Path: "/w/sub/deeper", Access: rw, Dir: true},
		{Path: "/opt/tool", Access: ReadExec, Dir: true},
		{Path: "/etc/hosts", Access: rw},
		{Path: "/secret", Access: 0, Dir: true},
	}, rw&^IoctlDev, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/ execute|read_file|read_dir",
		"/etc/hosts execute|write_file|read_file|truncate",
		"/w " + (rw &^ IoctlDev).String(),
	}
	if !reflect.DeepEqual(render(got), want) {
		t.Errorf("got  %q\nwant %q", render(got), want)
	}
}

func TestRulesCarveADenyUnderTheRoot(t *testing.T) {
	list := fakeFS(map[string][]Entry{
		"/":        {{Name: "bin", Dir: true}, {Name: "home", Dir: true}, {Name: "vmlinuz", Symlink: true}},
		"/home":    {{Name: "me", Dir: true}, {Name: "other", Dir: true}},
		"/home/me": {{Name: "secrets", Dir: true}, {Name: "notes.txt"}, {Name: "proj", Dir: true}, {Name: "evil", Symlink: true}},
	})
	got, err := Rules([]Grant{
		{Path: "/", Access: ReadExec, Dir: true},
		{Path: "/home/me/secrets", Access: 0, Dir: true},
		{Path: "/home/me/proj", Access: rw, Dir: true},
	}, rw, true, list)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/bin execute|read_file|read_dir",
		"/home/me/notes.txt execute|read_file",
		"/home/me/proj " + rw.String(),
		"/home/other execute|read_file|read_dir",
	}
	if !reflect.DeepEqual(render(got), want) {
		t.Errorf("got  %q\nwant %q", render(got), want)
	}
}

func TestRulesCarveReadOnlyInsideWritable(t *testing.T) {
	list := fakeFS(map[string][]Entry{
		"/w": {{Name: ".git", Dir: true}, {Name: "src", Dir: true}, {Name: "go.mod"}},
	})
	got, err := Rules([]Grant{
		{Path: "/w", Access: rw, Dir: true},
		{Path: "/w/.git", Access: ReadExec, Dir: true},
		{Path: "/w/.git/scratch", Access: rw, Dir: true},
	}, rw, true, list)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/w/.git execute|read_file|read_dir",
		"/w/.git/scratch " + (rw &^ ReadExec).String(),
		"/w/go.mod execute|write_file|read_file|truncate|ioctl_dev",
		"/w/src " + rw.String(),
	}
	if !reflect.DeepEqual(render(got), want) {
		t.Errorf("got  %q\nwant %q", render(got), want)
	}
}

// Without a hole, nothing is listed and the grants stay whole.
func TestRulesCarveNothingWithoutAHole(t *testing.T) {
	got, err := Rules([]Grant{
		{Path: "/", Access: ReadExec, Dir: true},
		{Path: "/w", Access: rw, Dir: true},
		{Path: "/w/sub", Access: rw, Dir: true},
	}, rw, true, fakeFS(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/ execute|read_file|read_dir", "/w " + (rw &^ ReadExec).String()}
	if !reflect.DeepEqual(render(got), want) {
		t.Errorf("got  %q\nwant %q", render(got), want)
	}
}

func TestRulesCarveFailsWhenAListFails(t *testing.T) {
	_, err := Rules([]Grant{{Path: "/", Access: ReadExec, Dir: true}, {Path: "/x", Dir: true}}, rw, true, fakeFS(nil))
	if err == nil {
		t.Error("want the lister's error")
	}
}
