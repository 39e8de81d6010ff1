//go:build unix

package gitguard

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIdentity(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A repository under ~/work, a linked worktree of it elsewhere, and a
	// directory outside any repository.
	if err := os.MkdirAll(filepath.Join(home, "work", "repo", ".git", "worktrees", "wt"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("elsewhere/wt/.git", "gitdir: ../../work/repo/.git/worktrees/wt\n")
	if err := os.MkdirAll(filepath.Join(home, "plain", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(".config/git/config", "[user]\n\tname = XDG Name\n\temail = xdg@example.com\n")
	write(".gitconfig", "[include]\n\tpath = .gitconfig\n"+ // including itself ends
		"[user]\n\tname = Home Name\n[include]\n\tpath = inc/extra\n"+
		"[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.inc\n[includeIf \"gitdir/i:"+home+"/WORK/REPO/.GIT/WORKTREES/\"]\n\tpath = wt.inc\n")
	write("inc/extra", "[user]\n\temail = extra@example.com\n")
	write("work.inc", "[user]\n\temail = work@example.com\n")
	write("wt.inc", "[user]\n\tname = Worktree Name\n")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	for _, tc := range []struct {
		ws   string
		want User
	}{
		{"plain/sub", User{"Home Name", "extra@example.com"}},
		{"work/repo", User{"Home Name", "work@example.com"}},
		{"elsewhere/wt", User{"Worktree Name", "work@example.com"}},
	} {
		if got := Identity(home, filepath.Join(home, tc.ws)); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.ws, got, tc.want)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	write("xdg/git/config", "[user]\n\tname = Other XDG\n\temail = other@example.com\n")
	write(".gitconfig", "[user]\n\temail = home@example.com\n")
	if got, want := Identity(home, home), (User{"Other XDG", "home@example.com"}); got != want {
		t.Errorf("XDG_CONFIG_HOME, then ~/.gitconfig: %+v, want %+v", got, want)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "global"))
	write("global", "[user]\n\tname = Global\n")
	if got, want := Identity(home, home), (User{Name: "Global"}); got != want {
		t.Errorf("GIT_CONFIG_GLOBAL alone: %+v, want %+v", got, want)
	}
}

func TestIncludeApplies(t *testing.T) {
	const home, gitDir = "/home/me", "/home/me/work/repo/.git"
	for cond, want := range map[string]bool{
		"gitdir:/home/me/work/":          true,
		"gitdir:~/work/":                 true,
		"gitdir:~/work":                  false, // no slash: the git directory itself
		"gitdir:/home/me/work/repo/.git": true,
		"gitdir:/home/me/WORK/":          false,
		"gitdir/i:/home/me/WORK/":        true,
		"gitdir:/home/me/other/":         false,
		"gitdir:~/work/*/":               false, // patterns are left out
		"gitdir:work/":                   false, // relative
		"onbranch:main":                  false,
		"hasconfig:remote.*.url:x":       false,
	} {
		if got := includeApplies(cond, gitDir, home); got != want {
			t.Errorf("includeApplies(%q) = %v, want %v", cond, got, want)
		}
	}
	if includeApplies("gitdir:/", "", home) {
		t.Error("no repository: a gitdir condition applied")
	}
}
