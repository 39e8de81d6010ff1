//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostAttack is a payload that tries to make a host tool the user runs in
// the workspace afterwards run a program of its own (it would create
// MARKER). The payload may be refused or ended: what counts is the host.
type hostAttack struct {
	name   string
	setUp  func(t *testing.T, a agentEnv, ws string)
	script string
	// host are the git commands the user runs afterwards, in where
	// (relative to the workspace); nil is status and a commit at the top.
	host  [][]string
	where string
	// refused: the run itself is refused (exit 125) with this text; in
	// the Landlock-only mode, refusedLandlock.
	refused, refusedLandlock string
}

// tryHostAttacks runs each attack in a fresh repository, in both modes,
// then host git as the user would: the marker must not appear, and the
// payload ends on its own (0) or is ended by nsrun (137), never otherwise.
func tryHostAttacks(t *testing.T, attacks []hostAttack) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	for _, iso := range gitModes {
		for _, tc := range attacks {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				os.Remove(marker)
				ws := workspace(t)
				a.newRepo(t, ws)
				if tc.setUp != nil {
					tc.setUp(t, a, ws)
				}
				script := strings.ReplaceAll(tc.script, "MARKER", marker)
				r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), script+"\ntrue")
				refused := strings.ReplaceAll(tc.refused, "WS", ws)
				if iso.name == "landlock" && tc.refusedLandlock != "" {
					refused = strings.ReplaceAll(tc.refusedLandlock, "WS", ws)
				}
				switch {
				case refused != "":
					if r.code != 125 || !strings.Contains(r.stderr, refused) {
						t.Errorf("want the run refused with %q: %v", refused, r)
					}
				case r.code != 0 && r.code != 137:
					t.Errorf("the payload neither ended nor was ended: %v", r)
				}
				host := tc.host
				if host == nil {
					host = [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "host"}}
				}
				for _, args := range host {
					out, err := a.hostGit(t, filepath.Join(ws, tc.where), args...)
					if _, serr := os.Stat(marker); serr == nil {
						t.Fatalf("host git %v ran the payload's program (%v)\n%s\npayload: %v", args, err, out, r)
					}
				}
			})
		}
	}
}

// hook is a shell line that writes a hook marking MARKER to the file $1.
const hook = `mkhook() { mkdir -p "$(dirname "$1")" && printf '#!/bin/sh\ntouch MARKER\n' > "$1" && chmod +x "$1"; }; `

// Paths the configuration names through a symlink in the workspace: git
// resolves the symlink, so the protection holds what it leads to and the
// symlink itself (neither making the missing target through the link's
// canonical place nor pointing the link elsewhere works).
func TestAgentConfigPathsThroughSymlinks(t *testing.T) {
	linkTo := func(link, target string, config ...string) func(t *testing.T, a agentEnv, ws string) {
		return func(t *testing.T, a agentEnv, ws string) {
			if err := os.MkdirAll(filepath.Join(ws, "real", "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(config); i += 2 {
				a.mustGit(t, ws, "config", config[i], config[i+1])
			}
		}
	}
	withHooks := func(t *testing.T, a agentEnv, ws string) {
		linkTo("link", "real", "core.hooksPath", "link/hooks")(t, a, ws)
		if err := os.Mkdir(filepath.Join(ws, "real", "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	evil := hook + `mkhook evil/hooks/pre-commit; mkhook evil/fsmon; printf '[core]\n\tfsmonitor = touch MARKER; false\n' > evil/inc; `
	tryHostAttacks(t, []hostAttack{
		{name: "hooksPath: make the target at the link's place", setUp: linkTo("link", "real", "core.hooksPath", "link/hooks"),
			script: hook + `mkhook real/hooks/pre-commit; sleep 3`},
		{name: "hooksPath: point the link elsewhere", setUp: linkTo("link", "real", "core.hooksPath", "link/hooks"),
			script: evil + `rm link; ln -s evil link; sleep 3`},
		{name: "hooksPath: rename the link away", setUp: linkTo("link", "real", "core.hooksPath", "link/hooks"),
			script: evil + `mv link link.old; ln -s evil link; sleep 3`},
		{name: "hooksPath: .. after a link", setUp: linkTo("link", "real/sub", "core.hooksPath", "link/../hooks"),
			script:          hook + `mkhook real/hooks/pre-commit; sleep 3`,
			refusedLandlock: "goes into WS/real/sub and out again"},
		{name: "hooksPath: a dangling link", setUp: linkTo("link", "nowhere", "core.hooksPath", "link/hooks"),
			script: hook + `mkhook nowhere/hooks/pre-commit; sleep 3`},
		{name: "existing hooks: point the link elsewhere", setUp: withHooks,
			script: evil + `rm link; ln -s evil link; sleep 3`},
		{name: "fsmonitor: make the program at the link's place", setUp: linkTo("link", "real", "core.fsmonitor", "link/fsmon"),
			script: hook + `mkhook real/fsmon; sleep 3`},
		{name: "fsmonitor: point the link elsewhere", setUp: linkTo("link", "real", "core.fsmonitor", "link/fsmon"),
			script: evil + `rm link; ln -s evil link; sleep 3`},
		{name: "include: write the file at the link's place", setUp: linkTo("link", "real", "include.path", "../link/inc"),
			script: `printf '[core]\n\tfsmonitor = touch MARKER; false\n' > real/inc; sleep 3`},
		{name: "include: point the link elsewhere", setUp: linkTo("link", "real", "include.path", "../link/inc"),
			script: evil + `rm link; ln -s evil link; sleep 3`},
		{name: "hooksPath through ..: a symlink for the directory left", setUp: linkTo("link", "real", "core.hooksPath", "real/sub/../hooks"),
			script:          hook + `mkhook x/hooks/pre-commit; mkdir -p x/y; mv real/sub real/sub.old && ln -s ../x/y real/sub; sleep 3`,
			refusedLandlock: "goes into " + "WS/real/sub" + " and out again"},
	})
}

// A submodule the project lists but the user has not initialised has no
// git directory yet: one the payload plants at .git/modules/NAME is the
// one `git submodule update --init` on the host adopts and checks out
// with (its hooks run). The name is kept absent; a git directory planted
// for a name the payload adds to .gitmodules is named after the run.
func TestAgentUninitialisedSubmodule(t *testing.T) {
	// The submodule's origin is in the workspace, where the sandbox sees it.
	withSubmodule := func(t *testing.T, a agentEnv, ws string) {
		lib := filepath.Join(ws, "lib")
		a.newRepo(t, lib)
		sha := strings.TrimSpace(a.mustGit(t, lib, "rev-parse", "HEAD"))
		writeFile(t, filepath.Join(ws, ".gitmodules"), "[submodule \"opt/x\"]\n\tpath = opt\n\turl = ./lib\n")
		a.mustGit(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+sha+",opt")
		a.mustGit(t, ws, "add", ".gitmodules")
		a.mustGit(t, ws, "commit", "-qm", "an optional submodule")
	}
	plant := func(name string) string {
		d := ".git/modules/" + name
		return hook + `git clone -q --bare lib ` + d + ` && git -C ` + d + ` config core.bare false && ` +
			`git -C ` + d + ` config core.worktree "$PWD/opt" && mkhook ` + d + `/hooks/post-checkout; sleep 3`
	}
	update := [][]string{{"-c", "protocol.file.allow=always", "submodule", "update", "--init"}, {"status"}}
	tryHostAttacks(t, []hostAttack{
		{name: "plant its git directory", setUp: withSubmodule, script: plant("opt/x"), host: update},
	})
}

// A git directory the payload makes under .git/modules for a name of its
// own (with the .gitmodules entry that host git then reads) is named
// after the run, in a warning and in the report.
func TestAgentMadeModuleReported(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), `set -e
git init -q --bare .git/modules/evil/x
printf '[submodule "evil/x"]\n\tpath = e\n\turl = ./e\n' > .gitmodules`)
			m := filepath.Join(ws, ".git", "modules", "evil", "x")
			if r.code != 0 || !strings.Contains(r.stderr, "git: "+m+" is a git directory the sandbox made for a submodule") ||
				!strings.Contains(r.stderr, `"`+m+`"`) {
				t.Errorf("not named: %v", r)
			}
		})
	}
}

// What else the payload can write in a repository, tried against the
// host git commands a user runs afterwards (with the default
// configuration): git itself refuses `update = !command` from
// .gitmodules; alternates bring objects only, never another repository's
// configuration; info/grafts and info/sparse-checkout are data; a legacy
// remote (.git/remotes, .git/branches) can name a URL but git refuses the
// ext:: transport; a broken index or packed-refs makes git fail, nothing
// more; a relative core.hooksPath of the user's own configuration is
// protected in the workspace like the repository's.
func TestAgentOtherGitFiles(t *testing.T) {
	withSubmodule := func(t *testing.T, a agentEnv, ws string) {
		a.newRepo(t, filepath.Join(ws, "lib"))
		a.mustGit(t, ws, "submodule", "add", "-q", "./lib", "sub")
		a.mustGit(t, ws, "commit", "-qm", "sub")
	}
	status := []string{"status"}
	everyday := [][]string{status, {"log", "-p", "-1"}, {"diff", "HEAD"}, {"commit", "-q", "--allow-empty", "-m", "host"}}
	withGlobalHooks := func(t *testing.T, a agentEnv, ws string) {
		cfg := filepath.Join(a.home, ".gitconfig")
		old := readFile(t, cfg)
		writeFile(t, cfg, old+"[core]\n\thooksPath = .githooks\n")
		t.Cleanup(func() { writeFile(t, cfg, old) })
	}
	tryHostAttacks(t, []hostAttack{
		{name: "update = !command in .gitmodules", setUp: withSubmodule,
			script: `git config -f .gitmodules submodule.sub.update '!touch MARKER' && git -C sub commit -q --allow-empty -m new`,
			host:   [][]string{{"-c", "protocol.file.allow=always", "submodule", "update"}, {"-c", "protocol.file.allow=always", "submodule", "update", "--init", "--remote"}, status}},
		{name: "alternates to a repository of the payload's",
			script: `git init -q --bare ../alt.git 2>/dev/null || git init -q --bare alt.git; d=$(ls -d ../alt.git alt.git 2>/dev/null | head -1); git -C $d config core.fsmonitor "touch MARKER; false"; git -C $d config core.bare false; git -C $d config core.worktree "$PWD"; ` + hook + `mkhook $d/hooks/pre-commit; echo "$(cd $d && pwd)/objects" >> .git/objects/info/alternates`,
			host:   everyday},
		{name: "grafts and sparse-checkout", script: `echo "$(git rev-parse HEAD)" > .git/info/grafts; printf '/*\n!f\n' > .git/info/sparse-checkout`,
			host: everyday},
		{name: "a legacy remote with the ext transport",
			script: `mkdir -p .git/remotes .git/branches && printf 'URL: ext::sh -c touch%% MARKER\nPull: refs/heads/main:refs/heads/x\n' > .git/remotes/origin && echo 'ext::sh -c touch% MARKER' > .git/branches/up`,
			host:   [][]string{{"fetch"}, {"fetch", "up"}, {"pull", "--no-rebase"}}},
		{name: "a broken index and packed-refs", script: `printf 'DIRC\0\0\0\2\377\377\377\377' > .git/index; printf 'garbage\n' > .git/packed-refs`,
			host: everyday},
		{name: "the user's relative core.hooksPath", setUp: withGlobalHooks, script: hook + `mkhook .githooks/pre-commit; sleep 3`,
			host: everyday},
	})
}

// A tracked file the payload changes and marks skip-worktree or
// assume-unchanged does not show in the host's git status or git diff,
// which the user reviews its work with: nsrun names those files after
// the run (not those marked before it); and a changed info/exclude, which
// hides untracked files (a conftest.py pytest runs) from git status.
func TestAgentHiddenChangesReported(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			for _, f := range []string{"Makefile", "setup.py", "old"} {
				writeFile(t, filepath.Join(ws, f), "ok\n")
			}
			a.mustGit(t, ws, "add", ".")
			a.mustGit(t, ws, "commit", "-qm", "files")
			a.mustGit(t, ws, "update-index", "--skip-worktree", "old")
			r := a.run(t, ws, iso.args, `set -e
echo 'all:; touch /tmp/owned' > Makefile && git update-index --skip-worktree Makefile
echo 'import os' > setup.py && git update-index --assume-unchanged setup.py
echo 'import os' > conftest.py && echo conftest.py >> .git/info/exclude`)
			if st := a.mustGit(t, ws, "status", "--porcelain"); st != "" {
				t.Fatalf("the trick does not hide the changes here: %q", st)
			}
			if r.code != 0 || !strings.Contains(r.stderr, "git: the sandbox marked 2 files in "+ws+" assume-unchanged or skip-worktree") ||
				!strings.Contains(r.stderr, ": Makefile, setup.py;") {
				t.Errorf("not named: %v", r)
			}
			exclude := "git: the sandbox changed " + filepath.Join(ws, ".git", "info", "exclude") + ": the files its patterns match do not show in git status"
			if !strings.Contains(r.stderr, exclude) {
				t.Errorf("info/exclude not named: %v", r)
			}
			if r := a.run(t, ws, iso.args, "git status -s >/dev/null"); r.code != 0 || strings.Contains(r.stderr, "git: the sandbox") {
				t.Errorf("a run that hides nothing: %v", r)
			}
		})
	}
}

// A linked worktree the payload makes by hand in a directory the user may
// cd into (a .git file naming a directory under the protected
// repository's worktrees/, whose commondir names a repository of the
// payload's) is a repository the sandbox made: it is named after the run.
func TestAgentHandMadeWorktreeReported(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			writeFile(t, filepath.Join(ws, "src", "main.c"), "int main;\n")
			r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), `set -e
git init -q --bare .git/evil.git
mkdir -p .git/worktrees/w && echo "$PWD/.git/evil.git" > .git/worktrees/w/commondir && echo 'ref: refs/heads/main' > .git/worktrees/w/HEAD
echo "$PWD/src/.git" > .git/worktrees/w/gitdir && echo "gitdir: $PWD/.git/worktrees/w" > src/.git`)
			src := filepath.Join(ws, "src")
			if r.code != 0 || !strings.Contains(r.stderr, "git: "+src+" is a repository the sandbox made") {
				t.Errorf("not named: %v", r)
			}
		})
	}
}
