package gitguard

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// monorepo makes a repository proj with the configuration lines cfg and
// a subdirectory sub (the workspace), and returns both.
func monorepo(t *testing.T, cfg string) (proj, ws string) {
	t.Helper()
	proj = filepath.Join(canon(t, t.TempDir()), "proj")
	newRepo(t, proj)
	ws = filepath.Join(proj, "sub")
	if err := os.MkdirAll(filepath.Join(ws, ".husky"), 0o755); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(proj, ".git", "config"), cfg)
	return proj, ws
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// The repository enclosing the workspace: what its configuration names
// inside the workspace is protected (relative to its work tree, includes
// relative to the file), its git directory is neither made writable nor
// read-only one by one, and it is reported.
func TestEnclosingRepository(t *testing.T) {
	cases := []struct {
		name, cfg     string
		setUp         func(t *testing.T, proj, ws string)
		ro, abs, held []string // relative to the workspace
	}{
		{name: "hooksPath", cfg: "[core]\n\thooksPath = sub/.husky\n", ro: []string{".husky"}},
		{name: "hooksPath missing", cfg: "[core]\n\thooksPath = sub/hooks\n", abs: []string{"hooks"}},
		{name: "hooksPath through ..", cfg: "[core]\n\thooksPath = sub/x/../.husky\n",
			setUp: func(t *testing.T, _, ws string) { os.Mkdir(filepath.Join(ws, "x"), 0o755) },
			ro:    []string{".husky"}, held: []string{"x"}},
		{name: "fsmonitor", cfg: "[core]\n\tfsmonitor = sub/tools/fsmonitor.sh\n", abs: []string{"tools"}},
		{name: "include", cfg: "[include]\n\tpath = ../sub/.gitconfig.local\n", abs: []string{".gitconfig.local"}},
		{name: "include naming more", cfg: "[include]\n\tpath = ../sub/inc\n",
			setUp: func(t *testing.T, _, ws string) {
				os.WriteFile(filepath.Join(ws, "inc"), []byte("[core]\n\tfsmonitor = ./sub/fsmon\n[include]\n\tpath = more\n"), 0o644)
			},
			ro: []string{"inc"}, abs: []string{"fsmon", "more"}},
		{name: "includeIf gitdir", cfg: "[includeIf \"gitdir:/elsewhere/\"]\n\tpath = ../sub/cond\n", abs: []string{"cond"}},
		{name: "attributesFile", cfg: "[core]\n\tattributesFile = sub/attrs\n[filter \"x\"]\n\tclean = ./sub/clean.sh\n",
			abs: []string{"attrs", "clean.sh"}},
		{name: "a symlink as the named file", cfg: "[core]\n\tfsmonitor = sub/link\n",
			setUp: func(t *testing.T, _, ws string) {
				os.WriteFile(filepath.Join(ws, "real"), []byte("#!/bin/sh\n"), 0o755)
				os.Symlink("real", filepath.Join(ws, "link"))
			},
			ro: []string{"real"}},
		{name: "worktree config", cfg: "[extensions]\n\tworktreeConfig = true\n",
			setUp: func(t *testing.T, proj, _ string) {
				os.WriteFile(filepath.Join(proj, ".git", "config.worktree"), []byte("[core]\n\thooksPath = sub/wthooks\n"), 0o644)
			},
			abs: []string{"wthooks"}},
		{name: "core.worktree", cfg: "[core]\n\tworktree = ../sub\n\thooksPath = h\n", abs: []string{"h"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proj, ws := monorepo(t, tc.cfg)
			if tc.setUp != nil {
				tc.setUp(t, proj, ws)
			}
			p := protect(ws)
			for _, want := range tc.ro {
				if !contains(rel(ws, p.ReadOnly), want) {
					t.Errorf("%s is not read-only: %q", want, rel(ws, p.ReadOnly))
				}
			}
			for _, want := range tc.abs {
				if !contains(absentRel(ws, p.Absent), want) {
					t.Errorf("%s is not kept absent: %q", want, absentRel(ws, p.Absent))
				}
			}
			if got := rel(ws, p.Held); !reflect.DeepEqual(got, append([]string{}, tc.held...)) {
				t.Errorf("held %q, want %q", got, tc.held)
			}
			for _, ro := range p.ReadOnly {
				if !within(ro, ws) {
					t.Errorf("read-only outside the workspace: %s", ro)
				}
			}
			if len(p.Writable) != 0 || len(p.Warnings) != 0 {
				t.Errorf("writable %q, warnings %q", p.Writable, p.Warnings)
			}
			want := []Enclosing{{Root: ws, Top: proj, GitDir: filepath.Join(proj, ".git"), Own: true}}
			if !reflect.DeepEqual(p.Enclosing, want) {
				t.Errorf("enclosing %+v, want %+v", p.Enclosing, want)
			}
		})
	}
}

// A linked worktree enclosing the workspace: the main repository's config
// and the worktree's own config.worktree are read.
func TestEnclosingLinkedWorktree(t *testing.T) {
	base := canon(t, t.TempDir())
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	newRepo(t, main)
	gitIn(t, main, "worktree", "add", "-q", wt)
	ws := filepath.Join(wt, "sub")
	os.Mkdir(ws, 0o755)
	appendFile(t, filepath.Join(main, ".git", "config"), "[extensions]\n\tworktreeConfig = true\n[core]\n\tfsmonitor = sub/fsmon\n")
	os.WriteFile(filepath.Join(main, ".git", "worktrees", "wt", "config.worktree"), []byte("[core]\n\thooksPath = sub/hooks\n"), 0o644)
	p := protect(ws)
	if got := absentRel(ws, p.Absent); !contains(got, "fsmon") || !contains(got, "hooks") {
		t.Errorf("absent %q", got)
	}
	if len(p.Writable) != 0 || len(p.Enclosing) != 1 || p.Enclosing[0].GitDir != filepath.Join(main, ".git", "worktrees", "wt") {
		t.Errorf("writable %q, enclosing %+v", p.Writable, p.Enclosing)
	}
}

// A repository in the workspace whose git directory the payload may write
// can be made invalid, and host git then looks on upward: the repository
// enclosing it is read too. A .git file ends git's discovery: nothing
// above it is read.
func TestEnclosingBeyondWorkspaceRepository(t *testing.T) {
	_, ws := monorepo(t, "[core]\n\thooksPath = sub/.husky\n")
	newRepo(t, ws)
	p := protect(ws)
	if !contains(rel(ws, p.ReadOnly), ".husky") || len(p.Enclosing) != 1 || p.Enclosing[0].Own {
		t.Errorf("read-only %q, enclosing %+v", rel(ws, p.ReadOnly), p.Enclosing)
	}

	proj, ws := monorepo(t, "[core]\n\thooksPath = sub/.husky\n")
	other := filepath.Join(filepath.Dir(proj), "other")
	newRepo(t, other)
	os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+filepath.Join(other, ".git")+"\n"), 0o644)
	p = protect(ws)
	if contains(rel(ws, p.ReadOnly), ".husky") || len(p.Enclosing) != 0 {
		t.Errorf("past a .git file: read-only %q, enclosing %+v", rel(ws, p.ReadOnly), p.Enclosing)
	}
}

// A .git file above the workspace naming a git directory that does not
// exist, inside the workspace: the payload's would be host git's.
func TestEnclosingGitFileNamesTheWorkspace(t *testing.T) {
	base := canon(t, t.TempDir())
	proj, ws := filepath.Join(base, "proj"), filepath.Join(base, "proj", "sub")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(proj, ".git"), []byte("gitdir: sub/repo\n"), 0o644)
	p := protect(ws)
	if got := absentRel(ws, p.Absent); !contains(got, "repo") {
		t.Errorf("absent %q", got)
	}
}

// A git directory of the enclosing repository that a rule makes writable
// (--rw proj/.git, so that git in the sandbox can commit) is protected as
// the workspace's, with proj's work tree for relative paths.
func TestEnclosingWritableGitDir(t *testing.T) {
	proj, ws := monorepo(t, "[core]\n\thooksPath = sub/.husky\n")
	gd := filepath.Join(proj, ".git")
	p := protect(ws, gd)
	if ro := rel(proj, p.ReadOnly); !contains(ro, "sub/.husky") || !contains(ro, ".git/config") || !contains(ro, ".git/hooks") {
		t.Errorf("read-only %q", ro)
	}
	if len(p.Enclosing) != 1 || !p.Enclosing[0].Writable {
		t.Errorf("enclosing %+v", p.Enclosing)
	}
}

// discoverIn finds what git's discovery finds in one directory.
func TestDiscoverIn(t *testing.T) {
	base := canon(t, t.TempDir())
	repo := filepath.Join(base, "repo")
	newRepo(t, repo)
	empty := filepath.Join(base, "empty")
	os.MkdirAll(filepath.Join(empty, ".git"), 0o755) // not a git directory: git looks on
	file := filepath.Join(base, "file")
	os.MkdirAll(file, 0o755)
	os.WriteFile(filepath.Join(file, ".git"), []byte("gitdir: ../repo/.git\n"), 0o644)
	bad := filepath.Join(base, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, ".git"), []byte("nonsense\n"), 0o644)
	link := filepath.Join(base, "link")
	os.MkdirAll(link, 0o755)
	os.Symlink("../file/.git", filepath.Join(link, ".git"))
	for _, tc := range []struct {
		dir  string
		want found
		ok   bool
	}{
		{repo, found{gitDir: filepath.Join(repo, ".git")}, true},
		{filepath.Join(repo, ".git"), found{gitDir: filepath.Join(repo, ".git")}, true},
		{empty, found{}, false},
		{file, found{gitDir: file + "/../repo/.git", file: true}, true},
		{bad, found{file: true, bad: true}, true},
		{link, found{gitDir: link + "/../repo/.git", file: true}, true},
	} {
		if got, ok := discoverIn(tc.dir); got != tc.want || ok != tc.ok {
			t.Errorf("discoverIn(%s) = %+v, %v; want %+v, %v", tc.dir, got, ok, tc.want, tc.ok)
		}
	}
}

// What the enclosing repository names in another writable directory (a
// relative hooksPath leaving the work tree by ..) is protected too.
func TestEnclosingNamesAnotherRoot(t *testing.T) {
	proj, ws := monorepo(t, "[core]\n\thooksPath = ../shared/hooks\n")
	shared := filepath.Join(filepath.Dir(proj), "shared")
	os.Mkdir(shared, 0o755)
	p := protect(ws, shared)
	if got := absentRel(shared, p.Absent); !contains(got, "hooks") {
		t.Errorf("absent %q", got)
	}
	if len(p.Enclosing) != 1 {
		t.Errorf("enclosing %+v", p.Enclosing)
	}
}
