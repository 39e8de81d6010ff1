package gitguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// gitIn runs host git for a test's set-up (the package itself never does).
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func newRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
}

func canon(t *testing.T, p string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// protect runs Protect with roots writable and everything else the
// read-only host root.
func protect(roots ...string) *Protection {
	return Protect(Input{Roots: roots, Decide: func(p string) State {
		for _, r := range roots {
			if within(p, r) {
				return Writable
			}
		}
		return HostReadOnly
	}})
}

func rel(base string, ps []string) []string {
	out := []string{}
	for _, p := range ps {
		r, err := filepath.Rel(base, p)
		if err != nil || strings.HasPrefix(r, "..") {
			r = p
		}
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func absentRel(base string, as []Absent) []string {
	var ps []string
	for _, a := range as {
		ps = append(ps, a.Path())
	}
	return rel(base, ps)
}

func TestPlainRepository(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	p := protect(ws)
	if got, want := rel(ws, p.ReadOnly), []string{".git/config", ".git/hooks"}; !reflect.DeepEqual(got, want) {
		t.Errorf("read-only %q, want %q", got, want)
	}
	// info/exclude stays writable; info/attributes must stay absent; the
	// work tree must not become a bare repository, nor .git hold another.
	if got, want := absentRel(ws, p.Absent), []string{".git/.git", ".git/commondir", ".git/info/attributes", "HEAD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("absent %q, want %q", got, want)
	}
	if len(p.Writable) != 0 || len(p.Warnings) != 0 {
		t.Errorf("writable %q, warnings %q", p.Writable, p.Warnings)
	}
	os.WriteFile(filepath.Join(ws, ".git", "info", "attributes"), nil, 0o644)
	if got := rel(ws, protect(ws).ReadOnly); !contains(got, ".git/info/attributes") || contains(got, ".git/info") {
		t.Errorf("with info/attributes: read-only %q", got)
	}
	os.RemoveAll(filepath.Join(ws, ".git", "info"))
	os.RemoveAll(filepath.Join(ws, ".git", "hooks"))
	if got, want := absentRel(ws, protect(ws).Absent), []string{".git/.git", ".git/commondir", ".git/hooks", ".git/info", "HEAD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("without info and hooks: absent %q, want %q", got, want)
	}
}

// A linked worktree whose main repository is outside the workspace: its own
// git directory and what worktrees share are writable, the main work
// tree's HEAD, index and config and the other worktrees are not.
func TestLinkedWorktree(t *testing.T) {
	base := canon(t, t.TempDir())
	main, ws, other := filepath.Join(base, "main"), filepath.Join(base, "wt"), filepath.Join(base, "other")
	newRepo(t, main)
	gitIn(t, main, "worktree", "add", "-q", ws)
	gitIn(t, main, "worktree", "add", "-q", other)
	gitIn(t, main, "pack-refs", "--all")
	p := protect(ws)
	mg := filepath.Join(main, ".git")
	if got, want := rel(mg, p.Writable), []string{"."}; !reflect.DeepEqual(got, want) {
		t.Errorf("writable %q, want %q", got, want)
	}
	ro := rel(mg, p.ReadOnly)
	for _, want := range []string{"HEAD", "config", "description", "hooks", "index", "info", "logs/HEAD",
		"worktrees/other", "worktrees/wt/commondir", "worktrees/wt/gitdir", ws + "/.git"} {
		if !contains(ro, want) {
			t.Errorf("%s is not read-only: %q", want, ro)
		}
	}
	for _, shared := range []string{"objects", "refs", "logs", "packed-refs", "worktrees", "worktrees/wt"} {
		if contains(ro, shared) {
			t.Errorf("%s must stay writable: %q", shared, ro)
		}
	}
	if got := absentRel(mg, p.Absent); !reflect.DeepEqual(got, []string{"commondir"}) {
		t.Errorf("absent %q", got)
	}
}

// A superproject with a submodule: the submodule's .git file and its git
// directory's config and hooks are protected, recursively.
func TestSubmodules(t *testing.T) {
	base := canon(t, t.TempDir())
	lib, inner, ws := filepath.Join(base, "lib"), filepath.Join(base, "inner"), filepath.Join(base, "ws")
	newRepo(t, inner)
	newRepo(t, lib)
	gitIn(t, lib, "submodule", "add", "-q", inner, "deep")
	gitIn(t, lib, "commit", "-qm", "deep")
	newRepo(t, ws)
	gitIn(t, ws, "submodule", "add", "-q", lib, "sub")
	gitIn(t, ws, "submodule", "update", "--init", "--recursive", "-q")
	p := protect(ws)
	ro := rel(ws, p.ReadOnly)
	for _, want := range []string{".git/config", ".git/hooks", "sub/.git", ".git/modules/sub/config", ".git/modules/sub/hooks",
		"sub/deep/.git", ".git/modules/sub/modules/deep/config", ".git/modules/sub/modules/deep/hooks"} {
		if !contains(ro, want) {
			t.Errorf("%s is not read-only: %q", want, ro)
		}
	}
	abs := absentRel(ws, p.Absent)
	for _, want := range []string{".git/commondir", ".git/modules/sub/commondir", ".git/modules/sub/modules/deep/commondir"} {
		if !contains(abs, want) {
			t.Errorf("%s is not kept absent: %q", want, abs)
		}
	}
	if len(p.Writable) != 0 {
		t.Errorf("writable %q", p.Writable)
	}
	// Launched in the submodule itself: its git directory is outside the
	// workspace and becomes writable, protected; the superproject's not.
	sub := filepath.Join(ws, "sub")
	p = protect(sub)
	if got := rel(ws, p.Writable); !reflect.DeepEqual(got, []string{".git/modules/sub"}) {
		t.Errorf("from the submodule: writable %q", got)
	}
	if ro := rel(ws, p.ReadOnly); !contains(ro, ".git/modules/sub/config") || contains(ro, ".git/config") {
		t.Errorf("from the submodule: read-only %q", ro)
	}
}

// The paths a config names for git to run are protected where they lie in
// the workspace: existing ones read-only, missing ones kept absent.
func TestConfigTargets(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	for _, d := range []string{"tools", ".husky", ".husky/_"} {
		os.Mkdir(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, "tools", "textconv"), nil, 0o755)
	os.WriteFile(filepath.Join(ws, "local.gitconfig"), []byte("[core]\n\tpager = ./tools/pager --x\n"), 0o644)
	cfg := `[core]
	hooksPath = .husky/_
	fsmonitor = true
	editor = vim
[include]
	path = ../local.gitconfig
[includeIf "gitdir:/elsewhere/"]
	path = ../cond.gitconfig
[diff "img"]
	textconv = tools/textconv
[filter "x"]
	clean = sh ./scripts/clean.sh
[alias]
	st = status
	run = !./bin/run-me --flag
[credential]
	helper = store
[sendemail]
	sendmailCmd = ./mail/send
[sendemail "work"]
	sendmailCmd = ./mail2/send
	toCmd = ./mail3/to
[imap]
	tunnel = ./imap/tunnel
[core]
	alternateRefsCommand = ./refs/cmd
[tar "tar.xz"]
	command = ./compress/xz -c
[lfs "customtransfer.folder"]
	path = ./lfs-agent/run
[lfs "extension.crypt"]
	clean = ./lfs-ext/clean %f
	smudge = ./lfs-ext2/smudge %f
[svn]
	authorsProg = ./svn/authors
`
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte(cfg), 0o644)
	p := protect(ws)
	ro := rel(ws, p.ReadOnly)
	for _, want := range []string{".husky/_", ".husky", "local.gitconfig", "tools/textconv"} {
		if !contains(ro, want) {
			t.Errorf("%s is not read-only: %q", want, ro)
		}
	}
	abs := absentRel(ws, p.Absent)
	for _, want := range []string{"cond.gitconfig", "scripts", "bin", "tools/pager", "mail", "mail2", "mail3", "imap", "refs", "compress", "lfs-agent", "lfs-ext", "lfs-ext2", "svn"} {
		if !contains(abs, want) {
			t.Errorf("%s is not kept absent: %q", want, abs)
		}
	}
	for _, a := range p.Absent {
		if a.Name == "bin" && !strings.Contains(a.Why, "alias.run") {
			t.Errorf("why: %q", a.Why)
		}
	}
}

func TestUnprotectable(t *testing.T) {
	base := canon(t, t.TempDir())
	real, ws := filepath.Join(base, "real"), filepath.Join(base, "ws")
	newRepo(t, real)
	os.Mkdir(ws, 0o755)
	os.Symlink(filepath.Join(real, ".git"), filepath.Join(ws, ".git"))
	p := protect(ws)
	if !reflect.DeepEqual(p.ReadOnly, []string{filepath.Join(ws, ".git")}) || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "symlink") {
		t.Errorf("a .git symlink: %+v", p)
	}
	os.Remove(filepath.Join(ws, ".git"))
	os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: /nonexistent/x\n"), 0o644)
	p = protect(ws)
	if !reflect.DeepEqual(p.ReadOnly, []string{filepath.Join(ws, ".git")}) || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "cannot be protected") {
		t.Errorf("a gitdir that does not exist: %+v", p)
	}
	os.Remove(filepath.Join(ws, ".git"))
	newRepo(t, ws)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core\n"), 0o644)
	p = protect(ws)
	if !reflect.DeepEqual(p.ReadOnly, []string{filepath.Join(ws, ".git")}) || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "whole git directory") {
		t.Errorf("an unparsable config: %+v", p)
	}
}

// A folder of projects: repositories at any depth are found, in hidden
// directories and node_modules too; the directories above each cannot
// become repositories, and the folder itself cannot either.
func TestFolderOfProjects(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, filepath.Join(ws, "a"))
	newRepo(t, filepath.Join(ws, "org", "b"))
	newRepo(t, filepath.Join(ws, "x", "y", "z", "deep"))
	newRepo(t, filepath.Join(ws, "node_modules", "pkg"))
	newRepo(t, filepath.Join(ws, ".hidden", "h"))
	os.MkdirAll(filepath.Join(ws, "plain", "dir"), 0o755)
	p := protect(ws)
	ro := rel(ws, p.ReadOnly)
	for _, r := range []string{"a", "org/b", "x/y/z/deep", "node_modules/pkg", ".hidden/h"} {
		if !contains(ro, r+"/.git/config") {
			t.Errorf("%s: read-only %q", r, ro)
		}
	}
	want := []string{".git", ".hidden/.git", ".hidden/HEAD", ".hidden/h/.git/.git", ".hidden/h/HEAD", "HEAD",
		"a/.git/.git", "a/HEAD", "node_modules/.git", "node_modules/HEAD", "node_modules/pkg/.git/.git", "node_modules/pkg/HEAD",
		"org/.git", "org/HEAD", "org/b/.git/.git", "org/b/HEAD", "x/.git", "x/HEAD", "x/y/.git", "x/y/HEAD",
		"x/y/z/.git", "x/y/z/HEAD", "x/y/z/deep/.git/.git", "x/y/z/deep/HEAD"}
	var got []string
	for _, a := range absentRel(ws, p.Absent) {
		if !strings.HasSuffix(a, "/commondir") && !strings.HasSuffix(a, "/info/attributes") {
			got = append(got, a)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("absent %q, want %q", got, want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestWords(t *testing.T) {
	got := words(`FOO=./a sh -c 'x "y z"' ./b\ c;./d|e&&(f) "~/g"`)
	want := []string{"./a", "sh", "-c", `x "y z"`, "./b c", "./d", "e", "f", "~/g"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("words %q, want %q", got, want)
	}
}

// A nested repository the payload registers as a submodule in a writable
// index is found afterwards, in every index format; the ones that were
// there before are not reported.
func TestNested(t *testing.T) {
	for _, tc := range []struct{ name, format, version string }{
		{"v2", "sha1", "2"}, {"v3", "sha1", "3"}, {"v4", "sha1", "4"}, {"sha256", "sha256", "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, lib := canon(t, t.TempDir()), canon(t, t.TempDir())
			os.MkdirAll(ws, 0o755)
			gitIn(t, ws, "init", "-q", "--object-format="+tc.format)
			gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "first")
			gitIn(t, lib, "init", "-q", "--object-format="+tc.format)
			gitIn(t, lib, "commit", "-q", "--allow-empty", "-m", "lib")
			gitIn(t, ws, "submodule", "add", "-q", lib, "known/sub")
			p := protect(ws)
			if len(p.Trees) != 2 {
				t.Fatalf("trees %+v", p.Trees)
			}
			evil := filepath.Join(ws, "deep", "dir", "evil")
			os.MkdirAll(evil, 0o755)
			gitIn(t, evil, "init", "-q", "--object-format="+tc.format)
			gitIn(t, evil, "commit", "-q", "--allow-empty", "-m", "evil")
			out, _ := exec.Command("git", "-C", evil, "rev-parse", "HEAD").Output()
			gitIn(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(string(out))+",deep/dir/evil")
			gitIn(t, ws, "update-index", "--index-version", tc.version)
			var got []string
			for _, tr := range p.Trees {
				n, err := Nested(tr, p.Known)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, n...)
			}
			if !reflect.DeepEqual(got, []string{evil}) {
				t.Errorf("nested %q, want %q", got, evil)
			}
		})
	}
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	gitIn(t, ws, "config", "core.splitIndex", "true")
	gitIn(t, ws, "update-index", "--split-index")
	if _, err := Nested(Tree{Dir: ws, Index: filepath.Join(ws, ".git", "index"), hashSize: 20}, nil); err == nil || !strings.Contains(err.Error(), "split index") {
		t.Errorf("a split index: %v", err)
	}
}

// FuzzGitlinks: any bytes are gitlinks or an error, never a panic.
func FuzzGitlinks(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 24) + "\x00\x00\xe0\x00" + strings.Repeat("\x00", 32) + "\x00\x06\x00a/evil\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "index")
		os.WriteFile(p, data, 0o644)
		gitlinks(p, 20)
		gitlinks(p, 32)
	})
}

// A submodule .gitmodules lists that has no git directory yet: its
// directory under modules/ (or the first missing directory of it) is
// kept absent; a name git would refuse is left alone.
func TestUninitialisedSubmodule(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	os.WriteFile(filepath.Join(ws, ".gitmodules"), []byte("[submodule \"opt/x\"]\n\tpath = opt\n\turl = ../x\n"+
		"[submodule \"../../evil\"]\n\tpath = e\n\turl = ../e\n"), 0o644)
	if got := absentRel(ws, protect(ws).Absent); !contains(got, ".git/modules") || contains(got, "evil") {
		t.Errorf("without modules/: absent %q", got)
	}
	os.MkdirAll(filepath.Join(ws, ".git", "modules", "opt"), 0o755)
	if got := absentRel(ws, protect(ws).Absent); !contains(got, ".git/modules/opt/x") {
		t.Errorf("with modules/opt: absent %q", got)
	}
}

// hiddenEntries finds assume-unchanged and skip-worktree entries in the
// index versions git writes.
func TestHiddenEntries(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		ws := canon(t, t.TempDir())
		newRepo(t, ws)
		for _, f := range []string{"a", "b", "c"} {
			os.WriteFile(filepath.Join(ws, f), []byte(f), 0o644)
		}
		gitIn(t, ws, "add", ".")
		gitIn(t, ws, "update-index", "--index-version", version)
		gitIn(t, ws, "update-index", "--assume-unchanged", "a")
		if version != "2" {
			gitIn(t, ws, "update-index", "--skip-worktree", "c")
		}
		got, _, err := hiddenEntries(filepath.Join(ws, ".git", "index"), 20)
		want := map[string]bool{"a": true}
		if version != "2" {
			want["c"] = true
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("index version %s: %v %v, want %v", version, got, err, want)
		}
	}
}

// A .git file naming a git directory that does not exist: the first
// missing name on its way is kept absent (host git would use a git
// directory made there).
func TestDotgitFileNamingNothing(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	for _, tc := range []struct{ tree, gitdir, absent string }{
		{"wt", "../.git/worktrees/wt", ".git/worktrees"},
		{"sub", "../gitdirs/sub", "gitdirs"},
	} {
		wt := filepath.Join(ws, tc.tree)
		os.MkdirAll(wt, 0o755)
		os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+tc.gitdir+"\n"), 0o644)
		if abs := absentRel(ws, protect(ws).Absent); !contains(abs, tc.absent) {
			t.Errorf("gitdir: %s: %s is not kept absent: %q", tc.gitdir, tc.absent, abs)
		}
	}
}

// A commondir naming a directory that does not exist: the first missing
// name on its way is kept absent (host git would take the configuration
// of a git directory made there).
func TestCommondirNamingNothing(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	priv := filepath.Join(ws, "gitdirs", "wt")
	os.MkdirAll(priv, 0o755)
	os.WriteFile(filepath.Join(priv, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(priv, "commondir"), []byte("../../main/.git\n"), 0o644)
	if abs := absentRel(ws, protect(ws).Absent); !contains(abs, "main") {
		t.Errorf("main is not kept absent: %q", abs)
	}
}

// The user's own configuration files in a writable directory are
// protected: read-only where they exist, kept absent where not.
func TestGlobalConfigWritable(t *testing.T) {
	home := canon(t, t.TempDir())
	os.MkdirAll(filepath.Join(home, ".config"), 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = me\n"), 0o644)
	global := []string{filepath.Join(home, ".config", "git", "config"), filepath.Join(home, ".gitconfig")}
	p := Protect(Input{Roots: []string{home}, Global: global, Decide: func(p string) State {
		if within(p, home) {
			return Writable
		}
		return HostReadOnly
	}})
	if ro := rel(home, p.ReadOnly); !contains(ro, ".gitconfig") {
		t.Errorf(".gitconfig is not read-only: %q", ro)
	}
	if abs := absentRel(home, p.Absent); !contains(abs, ".config/git") {
		t.Errorf(".config/git is not kept absent: %q", abs)
	}
}

// A hook that is a symlink into the work tree runs the file it leads to:
// that file is read-only, a missing one kept absent; the same for the
// hooks core.hooksPath names.
func TestLinkedHooks(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	for _, d := range []string{"scripts", ".githooks"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "scripts", "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{
		".git/hooks/pre-commit": "../../scripts/pre-commit",
		".git/hooks/pre-push":   "../../scripts/pre-push",
		".githooks/commit-msg":  "../scripts/commit-msg",
	} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, ws, "config", "core.hooksPath", ".githooks")
	p := protect(ws)
	ro := rel(ws, p.ReadOnly)
	if !reflect.DeepEqual(ro, []string{".git/config", ".git/hooks", ".githooks", "scripts/pre-commit"}) {
		t.Errorf("read-only: %v", ro)
	}
	absent := absentRel(ws, p.Absent)
	for _, want := range []string{"scripts/pre-push", "scripts/commit-msg"} {
		found := false
		for _, a := range absent {
			found = found || a == want
		}
		if !found {
			t.Errorf("%s not kept absent: %v", want, absent)
		}
	}
}

// A remote's URL names a path on this machine by git's rule.
func TestLocalURL(t *testing.T) {
	for u, want := range map[string]string{
		"backup.git": "backup.git", "./b": "./b", "../b": "../b", "/srv/b.git": "/srv/b.git",
		"file:///srv/b.git": "/srv/b.git", "~/b": "~/b", "dir/with:colon": "dir/with:colon",
		"https://h/x.git": "", "ssh://h/x": "", "git@h:x.git": "", "h:x": "", "": "", "file://": "",
	} {
		got, ok := localURL(u)
		if got != want || ok != (want != "") {
			t.Errorf("localURL(%q) = %q, %v; want %q", u, got, ok, want)
		}
	}
}
