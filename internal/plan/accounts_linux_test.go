package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/mounts"
)

func TestAccountEntries(t *testing.T) {
	const passwd = "root:x:0:0:root:/root:/bin/bash\nme:x:1000:1000::/home/me:/bin/bash\nnsrun:x:999:999::/:/bin/sh"
	for _, tc := range []struct {
		name  string
		db    string
		a     account
		want  string // the line added, "" for none
		group bool
	}{
		{"the caller's name, free", passwd, account{uid: 1234, gid: 1234, user: "you", home: "/home/you"}, "you:x:1234:1234:nsrun sandbox user:/home/you:/bin/sh", false},
		{"a taken name: nsrun, taken too", passwd, account{uid: 1234, gid: 5, user: "me", home: "/h"}, "nsrun-1234:x:1234:5:nsrun sandbox user:/h:/bin/sh", false},
		{"no name known", "root:x:0:0::/:/bin/sh", account{uid: 77, gid: 7}, "nsrun:x:77:7:nsrun sandbox user:/:/bin/sh", false},
		{"an id that has its entry", passwd, account{uid: 1000, gid: 1000, user: "you"}, "", false},
		{"a bad name or home", "", account{uid: 5, gid: 5, user: "a:b", home: "rel"}, "nsrun:x:5:5:nsrun sandbox user:/:/bin/sh", false},
		{"a group", "root:x:0:\nstaff:x:50:me", account{gid: 1234, group: "staff"}, "nsrun:x:1234:", true},
		{"a group of its own", "root:x:0:", account{gid: 50}, "", true},
	} {
		with := passwdWith
		if tc.group {
			with = groupWith
			if tc.name == "a group of its own" {
				tc.db = "root:x:0:\nstaff:x:50:"
			}
		}
		out, added := with(tc.db, tc.a)
		if tc.want == "" {
			if added || out != tc.db {
				t.Errorf("%s: added %q", tc.name, out)
			}
			continue
		}
		if !added || !strings.HasPrefix(out, tc.db) || !strings.HasSuffix(out, "\n"+tc.want+"\n") && out != tc.want+"\n" {
			t.Errorf("%s: %q, want the line %q added", tc.name, out, tc.want)
		}
	}
	if n := lookupName(passwd, 1000); n != "me" {
		t.Errorf("lookupName: %q", n)
	}
}

// AccountFiles reads what the sandbox would show at /etc/passwd and
// /etc/group (the root's, or the tree a rule shows there) and leaves
// alone what a rule decides.
func TestAccountFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, db := range map[string]string{"passwd": "root:x:0:0::/root:/bin/sh\n", "group": "root:x:0:\n"} {
		if err := os.WriteFile(filepath.Join(root, "etc", name), []byte(db), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ids := IDs{UID: 4242, GID: 4343, HostUID: os.Getuid(), HostGID: os.Getgid()}
	files := func(rules []Rule) map[string]string {
		out := map[string]string{}
		for _, f := range AccountFiles(ids, true, root, rules, "someone", "/home/someone") {
			out[f.Path] = f.Content
		}
		return out
	}
	got := files(nil)
	if !strings.HasPrefix(got["/etc/passwd"], "root:x:0:0::/root:/bin/sh\n") || !strings.Contains(got["/etc/passwd"], ":x:4242:4343:nsrun sandbox user:/home/someone:/bin/sh\n") {
		t.Errorf("passwd: %q", got["/etc/passwd"])
	}
	if !strings.Contains(got["/etc/group"], ":x:4343:") {
		t.Errorf("group: %q", got["/etc/group"])
	}
	// A deny on the file is the caller's choice: nothing is written there.
	got = files([]Rule{{Path: "/etc/passwd", Canon: "/etc/passwd", Access: mounts.Deny}})
	if _, ok := got["/etc/passwd"]; ok {
		t.Errorf("a denied /etc/passwd was given an entry: %q", got["/etc/passwd"])
	}
	// A tmpfs over /etc shows empty files: the entry is all there is.
	got = files([]Rule{{Path: "/etc", Canon: "/etc", Access: mounts.Tmpfs, Dir: true}})
	if p := got["/etc/passwd"]; strings.Count(p, "\n") != 1 || !strings.Contains(p, ":x:4242:") {
		t.Errorf("passwd under a tmpfs: %q", p)
	}
	// Nothing asks for it: no files.
	if f := AccountFiles(ids, false, root, nil, "", ""); f != nil {
		t.Errorf("files without a reason: %v", f)
	}
}
