package gitguard

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGuardNames(t *testing.T) {
	for _, tc := range []struct {
		name             string
		d                discovery
		absent, readOnly []string
	}{
		{"a plain directory", discovery{}, []string{".git", "HEAD"}, nil},
		{"a work tree", discovery{dotgit: dotgitDir}, []string{"HEAD"}, nil},
		{"a work tree with a .git file", discovery{dotgit: dotgitFile}, nil, nil},
		{"a work tree with a .git file and a HEAD", discovery{dotgit: dotgitFile, head: true}, nil, nil},
		{"a bare repository", discovery{gitDir: true, head: true, objects: true}, []string{".git"}, nil},
		{"a .git directory", discovery{gitDir: true, head: true, objects: true}, []string{".git"}, nil},
		{"a work tree that is a git directory too", discovery{dotgit: dotgitDir, gitDir: true, head: true, objects: true}, nil, nil},
		{"a project's HEAD file", discovery{head: true}, []string{".git", "objects", "commondir"}, []string{"HEAD"}},
		{"a work tree with a HEAD file", discovery{dotgit: dotgitDir, head: true}, []string{"objects", "commondir"}, []string{"HEAD"}},
		{"an objects directory without HEAD", discovery{objects: true}, []string{".git", "HEAD"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			absent, readOnly := guardNames(tc.d)
			if !reflect.DeepEqual(absent, tc.absent) || !reflect.DeepEqual(readOnly, tc.readOnly) {
				t.Errorf("absent %q read-only %q, want %q %q", absent, readOnly, tc.absent, tc.readOnly)
			}
			for _, n := range absent {
				if guardWhy[n] == "" {
					t.Errorf("no reason for %s", n)
				}
			}
		})
	}
}

func TestOutermost(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"/a"}, []string{"/a"}},
		{[]string{"/a/b", "/a", "/c"}, []string{"/a", "/c"}},
		{[]string{"/ab", "/a", "/a/b"}, []string{"/a", "/ab"}},
		{[]string{"/a", "/"}, []string{"/"}},
	} {
		if got := outermost(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("outermost(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Bare repositories and separate git directories in a workspace are found
// and protected as git directories; a bare one keeps .git absent; a HEAD
// file of the project's is read-only and keeps its directory from
// becoming a git directory.
func TestBareAndSeparate(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	newRepo(t, filepath.Join(ws, "src", "dep"))
	gitIn(t, ws, "clone", "-q", "--bare", filepath.Join(ws, "src", "dep"), filepath.Join(ws, "mirrors", "dep.git"))
	os.MkdirAll(filepath.Join(ws, "lib", "gitdirs"), 0o755)
	gitIn(t, ws, "init", "-q", "--separate-git-dir", filepath.Join(ws, "lib", "gitdirs", "sep"), filepath.Join(ws, "lib", "sep"))
	// A file of the project's named HEAD in a directory above a repository.
	os.WriteFile(filepath.Join(ws, "src", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	p := protect(ws)
	ro, abs := rel(ws, p.ReadOnly), absentRel(ws, p.Absent)
	for _, want := range []string{"mirrors/dep.git/config", "mirrors/dep.git/hooks", "lib/gitdirs/sep/config", "lib/sep/.git", "src/dep/.git/config", "src/HEAD"} {
		if !contains(ro, want) {
			t.Errorf("%s is not read-only: %q", want, ro)
		}
	}
	for _, want := range []string{"mirrors/dep.git/.git", "mirrors/dep.git/commondir", "mirrors/.git", "mirrors/HEAD", "lib/gitdirs/sep/.git",
		"lib/.git", "src/dep/HEAD", "src/.git", "src/objects", "src/commondir", "HEAD"} {
		if !contains(abs, want) {
			t.Errorf("%s is not kept absent: %q", want, abs)
		}
	}
	// lib/sep has a .git file: git uses what it names or stops.
	for _, not := range []string{"lib/sep/HEAD", "src/HEAD", "mirrors/dep.git/HEAD"} {
		if contains(abs, not) {
			t.Errorf("%s is kept absent: %q", not, abs)
		}
	}
	known := map[string]bool{}
	for d := range p.Known {
		r, _ := filepath.Rel(ws, d)
		known[r] = true
	}
	for _, want := range []string{".", "src/dep", "mirrors/dep.git", "lib/sep", "lib/gitdirs/sep"} {
		if !known[want] {
			t.Errorf("%s is not known: %v", want, known)
		}
	}
}

// Made names the repositories of each layout made after Protect, and none
// that were there.
func TestMade(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	newRepo(t, filepath.Join(ws, "old"))
	p := protect(ws)
	newRepo(t, filepath.Join(ws, "src", "dir"))
	gitIn(t, ws, "init", "-q", "--bare", filepath.Join(ws, "src", "bare"))
	os.MkdirAll(filepath.Join(ws, "src", "file"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "file", ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	os.Symlink("/elsewhere", filepath.Join(ws, ".git", "x"))
	// Where case matters, git sees ordinary directories here, and finds
	// the repositories below them.
	for _, n := range []string{"Objects", "Refs", ".GIT"} {
		os.MkdirAll(filepath.Join(ws, "case", n), 0o755)
	}
	os.WriteFile(filepath.Join(ws, "case", "Head"), nil, 0o644)
	newRepo(t, filepath.Join(ws, "case", "app"))
	newRepo(t, filepath.Join(ws, "case", ".GIT", "app"))
	made, stopped, unread := Made(p.Roots, p.Known)
	if got, want := rel(ws, made), []string{"case/.GIT/app", "case/app", "src/bare", "src/dir", "src/file"}; !reflect.DeepEqual(got, want) || len(stopped)+len(unread) != 0 {
		t.Errorf("made %q stopped %q unread %v, want %q", got, stopped, unread, want)
	}
}

// A directory the walk after the run cannot read is named when the
// payload could have made it so: a repository there would go unnamed.
func TestMadeUnread(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, nil, 0o644)
	if _, _, unread := Made([]string{f}, nil); len(unread) != 1 || unread[0].Dir != f || unread[0].Err == nil {
		t.Errorf("a root that cannot be read: unread %v", unread)
	}
	if os.Geteuid() == 0 {
		return // root reads every directory
	}
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	p := protect(ws)
	src := filepath.Join(ws, "src")
	newRepo(t, filepath.Join(src, "app"))
	os.Chmod(src, 0o311)
	defer os.Chmod(src, 0o755)
	if made, _, unread := Made(p.Roots, p.Known); len(made) != 0 || len(unread) != 1 || unread[0].Dir != src {
		t.Errorf("made %q unread %v, want %s unread", made, unread, src)
	}
}

// The walk stops at its bound, breadth first: the upper levels are read.
func TestWalkBound(t *testing.T) {
	root := t.TempDir()
	tree(t, root, 120, 0)
	var read []string
	n, stopped := walk(root, 11, func(d string, _ *listing) { read = append(read, d) }, nil)
	if n != 11 || stopped == "" || len(read) != 11 {
		t.Fatalf("read %d, stopped at %q", n, stopped)
	}
	for _, d := range read[1:] {
		if filepath.Dir(d) != root {
			t.Errorf("%s read before the first level was done", d)
		}
	}
	if n, stopped := walk(root, walkLimit, func(string, *listing) {}, nil); n != 121 || stopped != "" {
		t.Errorf("whole walk: %d, stopped at %q", n, stopped)
	}
}

// A linked worktree's own git directory found apart from its work tree
// (moved out of the main repository's worktrees/): its commondir and
// gitdir are read-only.
func TestPrivateGitDirFound(t *testing.T) {
	ws := canon(t, t.TempDir())
	main, wt := filepath.Join(ws, "main"), filepath.Join(t.TempDir(), "wt")
	newRepo(t, main)
	gitIn(t, main, "worktree", "add", "-q", wt)
	priv := filepath.Join(ws, "moved")
	if err := os.Rename(filepath.Join(main, ".git", "worktrees", "wt"), priv); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(priv, "commondir"), []byte(filepath.Join(main, ".git")+"\n"), 0o644)
	ro := rel(ws, protect(ws).ReadOnly)
	for _, want := range []string{"moved/commondir", "moved/gitdir", "main/.git/config"} {
		if !contains(ro, want) {
			t.Errorf("%s is not read-only: %q", want, ro)
		}
	}
}
