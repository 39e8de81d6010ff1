//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// encloseAttack is a payload run in a workspace that lies inside a
// repository's work tree (not its top): what the enclosing repository's
// configuration names in the workspace must not become the payload's.
type encloseAttack struct {
	name string
	// setUp makes the layout under base and returns the workspace.
	setUp  func(t *testing.T, a agentEnv, base string) string
	script string
	// host are the git commands the user runs afterwards in the
	// workspace; nil is status and a commit.
	host [][]string
	// refusedLandlock: the Landlock-only run is refused (exit 125) with
	// this text (WS is the workspace).
	refusedLandlock string
}

// inProj makes a repository proj under base with the configuration
// config (pairs of KEY VALUE; PROJ in a value stands for its path) and
// returns its subdirectory sub, made with dirs in it.
func inProj(config []string, dirs ...string) func(t *testing.T, a agentEnv, base string) string {
	return func(t *testing.T, a agentEnv, base string) string {
		proj := filepath.Join(base, "proj")
		ws := filepath.Join(proj, "sub")
		a.newRepo(t, proj)
		for _, d := range append([]string{".husky"}, dirs...) {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i+1 < len(config); i += 2 {
			a.mustGit(t, proj, "config", strings.ReplaceAll(config[i], "PROJ", proj), config[i+1])
		}
		return ws
	}
}

// tryEncloseAttacks runs each attack in both modes, then host git in the
// workspace as the user would: the marker must not appear.
func tryEncloseAttacks(t *testing.T, attacks []encloseAttack) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		for _, tc := range attacks {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				ws := tc.setUp(t, a, workspace(t))
				marker := filepath.Join(workspace(t), "ran")
				r := a.run(t, ws, iso.args, strings.ReplaceAll(tc.script, "MARKER", marker)+"\ntrue")
				switch refused := strings.ReplaceAll(tc.refusedLandlock, "WS", ws); {
				case iso.name == "landlock" && refused != "":
					if r.code != 125 || !strings.Contains(r.stderr, refused) || strings.Count(r.stderr, "\n") > 0 {
						t.Errorf("want the run refused in one line with %q: %v", refused, r)
					}
				case r.code != 0 && r.code != 137 && !(r.code == 1 && strings.Contains(r.stderr, "appeared")):
					// 1: the payload ended before nsrun could end it, and
					// nsrun found what it planted (ExitError.Appeared).
					t.Errorf("the payload neither ended nor was ended: %v", r)
				}
				host := tc.host
				if host == nil {
					host = [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "host"}}
				}
				for _, args := range host {
					out, err := a.hostGit(t, ws, args...)
					if _, serr := os.Stat(marker); serr == nil {
						t.Fatalf("host git %v in %s ran the payload's program (%v)\n%s\npayload: %v", args, ws, err, out, r)
					}
				}
			})
		}
	}
}

// More ways for the repository enclosing the workspace to name what the
// payload writes (see TestRedteamEnclosingRepositoryConfigNamesTheWorkspace).
func TestEnclosingRepositoryAttacks(t *testing.T) {
	evilInclude := `printf '[core]\n\tfsmonitor = touch MARKER; echo\n' > `
	tryEncloseAttacks(t, []encloseAttack{
		{name: "includeIf gitdir", setUp: inProj([]string{"includeIf.gitdir:PROJ/.path", "../sub/cond.gitconfig"}),
			script: evilInclude + "cond.gitconfig", host: [][]string{{"status"}}},
		{name: "include, then the file it includes", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj([]string{"include.path", "../sub/local.gitconfig"})(t, a, base)
			writeFile(t, filepath.Join(ws, "local.gitconfig"), "[include]\n\tpath = more.gitconfig\n")
			return ws
		}, script: evilInclude + "more.gitconfig; " + evilInclude + "local.gitconfig", host: [][]string{{"status"}}},
		{name: "husky's .husky/_", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj([]string{"core.hooksPath", "sub/.husky/_"}, ".husky/_")(t, a, base)
			writeFile(t, filepath.Join(ws, ".husky", "_", "pre-commit"), "#!/bin/sh\nd=$(dirname \"$0\")/..\n[ -f \"$d/pre-commit\" ] && sh \"$d/pre-commit\"\nexit 0\n")
			if err := os.Chmod(filepath.Join(ws, ".husky", "_", "pre-commit"), 0o755); err != nil {
				t.Fatal(err)
			}
			return ws
		}, script: hook + `mkhook .husky/pre-commit`},
		{name: "hooksPath through ..: write the hook", setUp: inProj([]string{"core.hooksPath", "sub/x/../.husky"}, "x"),
			script: hook + `mkhook .husky/pre-commit`, refusedLandlock: "goes into WS/x and out again"},
		{name: "hooksPath through ..: a symlink for the directory left", setUp: inProj([]string{"core.hooksPath", "sub/x/../.husky"}, "x"),
			script:          hook + `mkdir -p evil/y && mkhook evil/.husky/pre-commit; mv x x.old && ln -s evil/y x; sleep 1`,
			refusedLandlock: "goes into WS/x and out again"},
		{name: "fsmonitor: a symlink as the named file, rewrite its target", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj([]string{"core.fsmonitor", "sub/tools/fsmon"}, "tools")(t, a, base)
			writeFile(t, filepath.Join(ws, "tools", "real.sh"), "#!/bin/sh\n")
			if err := os.Chmod(filepath.Join(ws, "tools", "real.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real.sh", filepath.Join(ws, "tools", "fsmon")); err != nil {
				t.Fatal(err)
			}
			return ws
		}, script: hook + `mkhook tools/real.sh`, host: [][]string{{"status"}}},
		{name: "fsmonitor: a symlink as the named file, point it elsewhere", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj([]string{"core.fsmonitor", "sub/tools/fsmon"}, "tools")(t, a, base)
			if err := os.Symlink("real.sh", filepath.Join(ws, "tools", "fsmon")); err != nil {
				t.Fatal(err)
			}
			return ws
		}, script: hook + `mkhook evil.sh; rm -f tools/fsmon; ln -s ../evil.sh tools/fsmon; sleep 1`,
			host: [][]string{{"status"}}},
		{name: "fsmonitor: a symlink as the named file, its directory replaced", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj([]string{"core.fsmonitor", "sub/tools/fsmon"}, "tools")(t, a, base)
			if err := os.Symlink("real.sh", filepath.Join(ws, "tools", "fsmon")); err != nil {
				t.Fatal(err)
			}
			return ws
		}, script: hook + `mkhook .husky/evil/fsmon; mv tools tools.old && ln -s .husky/evil tools; sleep 1`,
			host: [][]string{{"status"}}},
		{name: "a linked worktree's config.worktree", setUp: func(t *testing.T, a agentEnv, base string) string {
			main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
			a.newRepo(t, main)
			a.mustGit(t, main, "worktree", "add", "-q", wt)
			a.mustGit(t, main, "config", "extensions.worktreeConfig", "true")
			a.mustGit(t, wt, "config", "--worktree", "core.hooksPath", "sub/.husky")
			ws := filepath.Join(wt, "sub")
			if err := os.MkdirAll(filepath.Join(ws, ".husky"), 0o755); err != nil {
				t.Fatal(err)
			}
			return ws
		}, script: hook + `mkhook .husky/pre-commit`},
		{name: "the workspace's own repository made invalid", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj([]string{"core.hooksPath", "sub/.husky"})(t, a, base)
			a.newRepo(t, ws) // a repository of its own in proj (not a submodule)
			return ws
		}, script: hook + `mkhook .husky/pre-commit; echo garbage > .git/HEAD`},
		{name: "a .git file above naming a git directory in the workspace", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := filepath.Join(base, "proj", "sub")
			writeFile(t, filepath.Join(base, "proj", ".git"), "gitdir: sub/repo\n")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			return ws
		}, script: evilGitDir("repo", "..", "MARKER") + `; sleep 1`, host: [][]string{{"status"}}},
	})
}

// A session of the agent preset started in a repository's subdirectory
// protects what the enclosing repository names there, as a run does.
func TestEnclosingRepositorySession(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	e := newSessionEnv(t)
	ws := inProj([]string{"core.hooksPath", "sub/.husky"})(t, a, workspace(t))
	marker := filepath.Join(workspace(t), "ran")
	env := append(append([]string{}, a.env...), e.env...)
	if r := runClean(t, ws, env, "session", "start", "--preset", "agent", "enc"); r.code != 0 || r.stdout != "enc" {
		t.Fatalf("session start: %v", r)
	}
	t.Cleanup(func() { runClean(t, "/", env, "session", "stop", "enc") })
	r := runClean(t, ws, env, "exec", "enc", "--", "/bin/sh", "-c", strings.ReplaceAll(hook, "MARKER", marker)+`mkhook .husky/pre-commit`)
	if r.code == 0 {
		t.Errorf("the session's payload wrote .husky/pre-commit: %v", r)
	}
	runClean(t, "/", env, "session", "stop", "enc")
	out, err := a.hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "host")
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatalf("host git commit ran the payload's hook (%v)\n%s", err, out)
	}
}

// Git in the sandbox started in the subdirectory: the enclosing
// repository's git directory is read-only (-v says so); a rule making it
// writable lets git commit, with its configuration and hooks still
// protected. Outside /tmp, which the sandbox replaces with its own: there
// git's discovery inside would stop at the file system's boundary.
func TestEnclosingRepositoryGitInside(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	base, err := os.MkdirTemp("/var/tmp", "nsrun-enclose-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := inProj([]string{"core.hooksPath", "sub/.husky"})(t, a, base)
	gitDir := filepath.Join(base, "proj", ".git")
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			r := a.run(t, ws, append([]string{"-v"}, iso.args...), `git commit -q --allow-empty -m inside 2>/dev/null; echo commit=$?`)
			if !strings.Contains(r.stdout, "commit=128") || !strings.Contains(r.stderr, "git directory "+gitDir+" is read-only here") {
				t.Errorf("without a rule for %s: %v", gitDir, r)
			}
			r = a.run(t, ws, append([]string{"--rw", gitDir}, iso.args...), hook+`mkhook .husky/pre-commit 2>/dev/null; echo hook=$?
git commit -q --allow-empty -m inside; echo commit=$?
git config core.hooksPath elsewhere 2>/dev/null; echo config=$?`)
			if strings.Contains(r.stdout, "hook=0") {
				t.Errorf("with --rw %s: the payload wrote .husky/pre-commit: %v", gitDir, r)
			}
			for _, want := range []string{"commit=0", "config=4"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("with --rw %s: output lacks %q: %v", gitDir, want, r)
				}
			}
		})
	}
	if log := a.mustGit(t, ws, "log", "--format=%s"); strings.Count(log, "inside") != 2 {
		t.Errorf("the host sees %q", log)
	}
}
