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
	// The directories along the way to the deny can be listed: read_dir
	// on "/" reaches them all.
	want := []string{
		"/ read_dir",
		"/bin execute|read_file",
		"/home/me/notes.txt execute|read_file",
		"/home/me/proj " + (rw &^ ReadDir).String(),
		"/home/other execute|read_file",
	}
	if !reflect.DeepEqual(render(got), want) {
		t.Errorf("got  %q\nwant %q", render(got), want)
	}
}

// An Unlisted hole (the host's /dev of the Landlock-only mode) leaves "/"
// without read_dir: it would reach the hole's names. The other entries of
// "/" keep everything; the files granted inside the hole get their rights.
func TestRulesCarveAnUnlistedHole(t *testing.T) {
	list := fakeFS(map[string][]Entry{
		"/": {{Name: "dev", Dir: true}, {Name: "etc", Dir: true}, {Name: "home", Dir: true}, {Name: "bin", Symlink: true}},
	})
	got, err := Rules([]Grant{
		{Path: "/", Access: ReadFile | ReadDir, Dir: true},
		{Path: "/dev", Dir: true, Unlisted: true},
		{Path: "/dev/null", Access: ReadFile | WriteFile},
	}, rw, true, list)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/dev/null write_file|read_file",
		"/etc read_file|read_dir",
		"/home read_file|read_dir",
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
	// /w keeps what .git has too: it can be listed and its files read;
	// each entry but .git gets the rest.
	want := []string{
		"/w execute|read_file|read_dir",
		"/w/.git/scratch " + (rw &^ ReadExec).String(),
		"/w/go.mod write_file|truncate|ioctl_dev",
		"/w/src " + (rw &^ ReadExec).String(),
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

// A denied or read-only file in a writable directory: the directory can be
// listed, its other files keep every right, but nothing reaches the file.
func TestRulesCarveFilesInsideWritable(t *testing.T) {
	list := fakeFS(map[string][]Entry{
		"/w": {{Name: ".env"}, {Name: "Makefile"}, {Name: "src", Dir: true}, {Name: "main.go"}},
	})
	got, err := Rules([]Grant{
		{Path: "/w", Access: rw, Dir: true},
		{Path: "/w/.env", Access: 0},
		{Path: "/w/Makefile", Access: ReadExec},
	}, rw, true, list)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/w read_dir",
		"/w/Makefile execute|read_file",
		"/w/main.go execute|write_file|read_file|truncate|ioctl_dev",
		"/w/src " + (rw &^ ReadDir).String(),
	}
	if !reflect.DeepEqual(render(got), want) {
		t.Errorf("got  %q\nwant %q", render(got), want)
	}
}

func TestWayKeepsWhatCannotReachTheHoles(t *testing.T) {
	w := Grant{Path: "/w", Access: rw, Dir: true}
	for _, tc := range []struct {
		name  string
		holes []Grant
		want  FS
	}{
		{"read-only directory", []Grant{{Path: "/w/.git", Access: ReadExec, Dir: true}}, ReadExec},
		{"denied directory", []Grant{{Path: "/w/secret", Dir: true}}, ReadDir},
		{"read-only file", []Grant{{Path: "/w/x", Access: ReadFile}}, ReadFile | ReadDir},
		{"two holes", []Grant{{Path: "/w/.git", Access: ReadExec, Dir: true}, {Path: "/w/a/x", Access: ReadFile}}, ReadFile | ReadDir},
		{"a wider grant is no hole", []Grant{{Path: "/w/sub", Access: rw, Dir: true}}, rw & (FileRights | ReadDir)},
		{"unlisted denied directory", []Grant{{Path: "/w/dev", Dir: true, Unlisted: true}}, 0},
		{"unlisted read-only directory", []Grant{{Path: "/w/.git", Access: ReadExec, Dir: true, Unlisted: true}}, ReadExec},
		{"unlisted and denied", []Grant{{Path: "/w/dev", Dir: true, Unlisted: true}, {Path: "/w/secret", Dir: true}}, 0},
	} {
		if got := Way(w, tc.holes); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := Way(Grant{Path: "/", Access: ReadFile, Dir: true}, []Grant{{Path: "/x", Dir: true}}); got != 0 {
		t.Errorf("a grant without read_dir gives none: %s", got)
	}
}

func TestNarrowedNamesTheDirectoriesOnTheWay(t *testing.T) {
	got := Narrowed([]Grant{
		{Path: "/", Access: ReadFile | ReadDir, Dir: true},
		{Path: "/home/me/.ssh", Dir: true},
		{Path: "/w", Access: rw, Dir: true},
		{Path: "/w/.git", Access: ReadExec, Dir: true},
		{Path: "/w/a/b/secret.txt", Access: 0},
	}, rw)
	var dirs []string
	for _, n := range got {
		dirs = append(dirs, n.Dir+" "+n.Lost.String()+" "+fmt.Sprint(n.Holes))
	}
	// A denied file below /w leaves /w and the directories on the way
	// to it read_dir alone (their files get their rights one by one).
	want := []string{
		"/ read_file [/home/me/.ssh /w/a/b/secret.txt]",
		"/home read_file [/home/me/.ssh]",
		"/home/me read_file [/home/me/.ssh]",
		"/w " + (rw &^ ReadDir).String() + " [/w/.git /w/a/b/secret.txt]",
		"/w/a " + (rw &^ ReadDir).String() + " [/w/a/b/secret.txt]",
		"/w/a/b " + (rw &^ ReadDir).String() + " [/w/a/b/secret.txt]",
	}
	if !reflect.DeepEqual(dirs, want) {
		t.Errorf("got  %q\nwant %q", dirs, want)
	}
}
