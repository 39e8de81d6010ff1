//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --ro or --deny rule named through a symlink in the writable workspace
// protects what the host reaches through that name later: the link is
// pinned (bound onto itself), so the payload can neither remove, rename
// nor replace it, and the host's path still leads to the protected tree.
func TestRuleThroughSymlinkInWritableArea(t *testing.T) {
	ws := workspace(t)
	secrets := workspace(t)
	writeFile(t, filepath.Join(ws, "real-git", "config"), "host")
	writeFile(t, filepath.Join(ws, "real-git", "hooks", "pre-commit"), "host")
	writeFile(t, filepath.Join(secrets, "key"), "s3cret")
	writeFile(t, filepath.Join(ws, "other"), "evil")
	for link, target := range map[string]string{
		".git":   "real-git", // relative, to a directory in the workspace
		"secret": secrets,    // absolute, outside it
		"chain":  "to-git",   // a link to a link
		"to-git": filepath.Join(ws, "real-git"),
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	at := func(name string) string { return filepath.Join(ws, name) }
	opts := []string{"-q", "--rw", ws, "--ro", at(".git"), "--deny", at("secret"), "--ro", at("chain")}
	for _, tc := range []struct {
		op   []string
		want string
	}{
		{[]string{"remove", at(".git")}, "EBUSY"},
		{[]string{"rename", at(".git"), at("moved")}, "EBUSY"},
		{[]string{"rename", at("other"), at(".git")}, "EBUSY"},
		{[]string{"symlink", "other", at(".git")}, "EEXIST"},
		{[]string{"remove", at("secret")}, "EBUSY"},
		{[]string{"rename", at("other"), at("secret")}, "EBUSY"},
		{[]string{"remove", at("chain")}, "EBUSY"},
		{[]string{"remove", at("to-git")}, "EBUSY"}, // the link the first one leads through
		{[]string{"rename", at("other"), at("to-git")}, "EBUSY"},
		{[]string{"write", filepath.Join(at(".git"), "config")}, "EROFS"},
		{[]string{"read", filepath.Join(at("secret"), "key")}, "ENOENT"},
		{[]string{"ls", at("secret")}, ""},
	} {
		expect(t, strings.Join(tc.op, " "), helper(t, opts, tc.op[0], tc.op[1:]...), tc.want)
	}
	// The same with tools, all at once.
	r := run(t, ws, append(opts, "--", "/bin/sh", "-c",
		"rm -rf .git secret chain to-git; mv .git g2; mv secret s2; ln -sfn other .git; mkdir -p x/hooks && mv -T x .git; echo evil > .git/config; true")...)
	if r.code != 0 {
		t.Errorf("tools: %v", r)
	}
	for link, target := range map[string]string{".git": "real-git", "secret": secrets, "chain": "to-git", "to-git": filepath.Join(ws, "real-git")} {
		if got, err := os.Readlink(at(link)); err != nil || got != target {
			t.Errorf("host %s: %q %v, want a link to %s", link, got, err, target)
		}
	}
	expect(t, "host config", readFile(t, filepath.Join(ws, ".git", "config")), "host")
	expect(t, "host hook", readFile(t, filepath.Join(ws, ".git", "hooks", "pre-commit")), "host")
	expect(t, "host secret", readFile(t, filepath.Join(ws, "secret", "key")), "s3cret")
	// A --rw rule through a link promises nothing about the link: no pin.
	rep := filepath.Join(secrets, "r.json")
	r = run(t, ws, "--rw", ws, "--rw", at("secret"), "--report", rep, "--", "/bin/true")
	if r.code != 0 || strings.Contains(readFile(t, rep), `"`+at("secret")+`"`) {
		t.Errorf("--rw through a link: %v\n%s", r, readFile(t, rep))
	}
}

// --isolation landlock has no mounts to pin a link with: such a rule is
// refused, naming the link.
func TestRuleThroughSymlinkRefusedInLandlockMode(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "real-git", "config"), "host")
	if err := os.Symlink("real-git", filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(ws, "ran")
	for _, access := range []string{"--ro", "--deny"} {
		r := run(t, ws, "--isolation", "landlock", "--rw", ws, access, filepath.Join(ws, ".git"), "--", "/bin/touch", marker)
		if r.code != 125 || !strings.Contains(r.stderr, access+" "+filepath.Join(ws, ".git")) || !strings.Contains(r.stderr, "symlink") {
			t.Errorf("%s: %v", access, r)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
	// A link outside the writable rules cannot be replaced: accepted.
	other := workspace(t)
	if err := os.Symlink(filepath.Join(ws, "real-git"), filepath.Join(other, "git")); err != nil {
		t.Fatal(err)
	}
	r := run(t, ws, "--isolation", "landlock", "--rw", ws, "--ro", filepath.Join(other, "git"), "--", "/bin/true")
	if r.code != 0 {
		t.Errorf("a link in a read-only place: %v", r)
	}
}

// A protected file with other names (hard links) can be reached through
// them: nsrun says so.
func TestHardLinkedProtectedFileWarns(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "config"), "host")
	if err := os.Link(filepath.Join(ws, "config"), filepath.Join(ws, "alias")); err != nil {
		t.Fatal(err)
	}
	r := run(t, ws, "--rw", ws, "--ro", filepath.Join(ws, "config"), "--", "/bin/true")
	if r.code != 0 || !strings.Contains(r.stderr, "2 hard links") || strings.Count(r.stderr, "\n") != 0 {
		t.Errorf("want one warning line: %v", r)
	}
}
