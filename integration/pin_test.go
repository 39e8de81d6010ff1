//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A read-only or deny rule deeper than one level inside a writable one
// cannot be moved away by renaming a directory on the way (the bind would
// travel with it), nor replaced: every directory in between is pinned. The
// payload tries each way; afterwards the host path still resolves to the
// protected tree, unchanged.
func TestDeepRulesCannotBeMovedAway(t *testing.T) {
	ws := workspace(t)
	git := filepath.Join(ws, "p", ".git")
	writeFile(t, filepath.Join(git, "config"), "[core]\n")
	secret := filepath.Join(ws, "a", "b", "secret")
	writeFile(t, secret, "s3cret")
	writeFile(t, filepath.Join(ws, "p", "src.go"), "package p\n")
	before := map[string]uint64{}
	for _, p := range []string{git, secret, filepath.Join(ws, "p"), filepath.Join(ws, "a", "b")} {
		before[p] = inode(t, p)
	}
	opts := []string{"--rw", ws, "--ro", git, "--deny", secret}
	q := func(rel string) string { return filepath.Join(ws, rel) }
	script := []struct {
		op   string
		args []string
		want string
	}{
		{"mkdir", []string{q("x")}, "ok"},
		{"write", []string{q("x/config")}, "ok"},
		{"rename", []string{q("p"), q("moved")}, "EBUSY"},
		{"rename", []string{q("a"), q("moved")}, "EBUSY"},
		// A pinned directory is a mount of its own: a rename to another
		// mount fails with EXDEV before the kernel looks further.
		{"rename", []string{q("a/b"), q("moved")}, "EXDEV"},
		{"rename", []string{q("p/.git"), q("p/old")}, "EBUSY"},
		{"rename", []string{q("a/b/secret"), q("a/old")}, "EXDEV"},
		{"rename", []string{q("a/b/secret"), q("a/b/old")}, "EBUSY"},
		{"rename", []string{q("x"), q("p")}, "EBUSY"},
		{"rename", []string{q("x"), q("p/.git")}, "EXDEV"},
		{"rename", []string{q("x/config"), q("a/b/secret")}, "EXDEV"},
		{"exchange", []string{q("x"), q("p")}, "EBUSY"},
		{"exchange", []string{q("x"), q("a/b")}, "EXDEV"},
		{"exchange", []string{q("x"), q("p/.git")}, "EXDEV"},
		{"mkdir", []string{q("p/y")}, "ok"},
		{"rename", []string{q("p/y"), q("p/.git")}, "EBUSY"},
		{"exchange", []string{q("p/y"), q("p/.git")}, "EBUSY"},
		{"remove", []string{q("p/src.go")}, "ok"},
		{"rmdir", []string{q("p/.git")}, "EBUSY"},
		{"write", []string{q("p/.git/config")}, "EROFS"},
		{"rename", []string{q("p"), q("a/b/p")}, "EXDEV"},
	}
	var sh strings.Builder
	for _, s := range script {
		sh.WriteString(helperBin + " " + s.op + " '" + strings.Join(s.args, "' '") + "'\n")
	}
	// mv falls back to copying and removing when a rename fails with
	// EXDEV; whatever it manages, the protected paths must hold.
	sh.WriteString("mv " + q("p") + " " + q("mv-p") + " 2>/dev/null; mv " + q("a") + " " + q("mv-a") + " 2>/dev/null\n")
	sh.WriteString("mkdir -p " + q("p/.git") + " " + q("a/b") + " 2>/dev/null; echo evil > " + q("p/.git/config") + " 2>/dev/null; echo done\n")
	r := run(t, ws, append(opts, "--", "/bin/sh", "-c", sh.String())...)
	if r.code != 0 {
		t.Fatal(r)
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) != len(script)+1 || lines[len(lines)-1] != "done" {
		t.Fatalf("payload output: %v", r)
	}
	for i, s := range script {
		expect(t, s.op+" "+strings.Join(s.args, " "), lines[i], s.want)
	}
	for p, ino := range before {
		if got := inode(t, p); got != ino {
			t.Errorf("%s is another file on the host now (inode %d, was %d)", p, got, ino)
		}
	}
	expect(t, "the protected config", readFile(t, filepath.Join(git, "config")), "[core]\n")
	expect(t, "the denied secret", readFile(t, secret), "s3cret")
	if ents, _ := os.ReadDir(git); len(ents) != 1 {
		t.Errorf("the protected .git gained entries: %v", ents)
	}
}

// Many rules, each in its own directory, still build (each directory is
// pinned once) and the report lists the pins.
func TestPinsAreReported(t *testing.T) {
	ws := workspace(t)
	var opts []string
	for _, d := range []string{"r1/.git", "r2/.git", "r2/sub/.git"} {
		writeFile(t, filepath.Join(ws, d, "config"), "x")
		opts = append(opts, "--ro", filepath.Join(ws, d))
	}
	r := run(t, ws, append([]string{"--rw", ws, "--report", "-"}, append(opts, "--", "/bin/true")...)...)
	if r.code != 0 {
		t.Fatal(r)
	}
	for _, d := range []string{"r1", "r2", "r2/sub"} {
		if !strings.Contains(r.stderr, `"`+filepath.Join(ws, d)+`"`) {
			t.Errorf("report does not list the pin %s: %s", d, r.stderr)
		}
	}
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
