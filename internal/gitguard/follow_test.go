package gitguard

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// follow resolves as the kernel does: ".." after a symlink from its
// target, links at their canonical place, the first missing name in the
// canonical directory, a file where a directory is needed.
func TestFollow(t *testing.T) {
	d := canon(t, t.TempDir())
	for _, dir := range []string{"real/sub", "other"} {
		if err := os.MkdirAll(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(d, "file"), nil, 0o644)
	os.Symlink("real/sub", filepath.Join(d, "link"))
	os.Symlink(d+"/link", filepath.Join(d, "other", "abs"))
	os.Symlink("nowhere", filepath.Join(d, "dangling"))
	os.Symlink("loop", filepath.Join(d, "loop"))
	for _, tc := range []struct {
		path string
		want way
	}{
		{"real/sub", way{canon: d + "/real/sub"}},
		{"link/../hooks", way{links: []string{d + "/link"}, passed: []string{d + "/real/sub"}, dir: d + "/real", name: "hooks"}},
		{"real/sub/../../x", way{passed: []string{d + "/real/sub", d + "/real"}, dir: d, name: "x"}},
		{"other/abs/x/y", way{links: []string{d + "/other/abs", d + "/link"}, dir: d + "/real/sub", name: "x"}},
		{"dangling/hooks", way{links: []string{d + "/dangling"}, dir: d, name: "nowhere"}},
		{"file/hooks", way{file: d + "/file"}},
		{"file", way{canon: d + "/file"}},
	} {
		got := follow(d + "/" + tc.path)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("follow(%s) = %+v, want %+v", tc.path, got, tc.want)
		}
	}
	if w := follow(d + "/loop/x"); w.err == nil || len(w.links) != maxLinks {
		t.Errorf("a loop: %+v", w)
	}
}

// A path the configuration names through a symlink in the workspace: the
// canonical target is protected and the symlink held.
func TestConfigPathThroughSymlink(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	os.MkdirAll(filepath.Join(ws, "real", "hooks"), 0o755)
	os.Symlink("real", filepath.Join(ws, "link"))
	os.Symlink("real", filepath.Join(ws, "link2"))
	os.WriteFile(filepath.Join(ws, "tools"), nil, 0o644)
	gitIn(t, ws, "config", "core.hooksPath", "link/hooks")
	gitIn(t, ws, "config", "core.fsmonitor", "link2/fsmon")
	gitIn(t, ws, "config", "core.attributesFile", "tools/attrs")
	p := protect(ws)
	if got, want := rel(ws, p.Links), []string{"link", "link2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
	if ro := rel(ws, p.ReadOnly); !contains(ro, "real/hooks") || !contains(ro, "tools") || contains(ro, "link/hooks") {
		t.Errorf("read-only %q", ro)
	}
	if ab := absentRel(ws, p.Absent); !contains(ab, "real/fsmon") {
		t.Errorf("absent %q", ab)
	}
}

// A directory that a configured path enters and leaves by ".." is held,
// unless it holds something protected already (.git, for an include of
// "../x").
func TestConfigPathThroughDotDot(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, ws)
	os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
	gitIn(t, ws, "config", "core.hooksPath", "a/b/../hooks")
	gitIn(t, ws, "config", "include.path", "../shared.cfg")
	p := protect(ws)
	if got, want := rel(ws, p.Held), []string{"a/b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("held %q, want %q", got, want)
	}
	if ab := absentRel(ws, p.Absent); !contains(ab, "a/hooks") || !contains(ab, "shared.cfg") {
		t.Errorf("absent %q", ab)
	}
}

// A .git file whose git directory is reached through a symlink in the
// workspace: the symlink is held (repointed, it would give host git
// another repository).
func TestGitFileThroughSymlink(t *testing.T) {
	ws := canon(t, t.TempDir())
	newRepo(t, filepath.Join(ws, "gitdirs", "r"))
	os.Symlink("gitdirs", filepath.Join(ws, "link"))
	os.MkdirAll(filepath.Join(ws, "wt"), 0o755)
	os.WriteFile(filepath.Join(ws, "wt", ".git"), []byte("gitdir: ../link/r/.git\n"), 0o644)
	p := protect(ws)
	if got := rel(ws, p.Links); !contains(got, "link") {
		t.Errorf("links %q", got)
	}
}
