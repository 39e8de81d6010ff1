//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitModes are the two modes the agent preset runs in.
var gitModes = []struct {
	name string
	args []string
}{{"full", nil}, {"landlock", []string{"--isolation", "landlock"}}}

// gitAttack is a payload that tries to make the host's git, started in
// one of where, run a program of its own: marker is the file that
// program would create on the host.
type gitAttack struct {
	name, script string
	where        []string // relative to the workspace; "" is the workspace
	killed       bool     // a name nsrun keeps absent appears: the sandbox is ended
}

// evilConfig is the configuration of a git directory of the payload's:
// work tree work, and an fsmonitor that marks.
func evilConfig(work, marker string) string {
	return `printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = %s\n\tfsmonitor = touch ` + marker + `; false\n' "` + work + `"`
}

// evilGitDir makes a git directory of the payload's at dir (relative to
// the workspace) whose work tree is work.
func evilGitDir(dir, work, marker string) string {
	return `mkdir -p ` + dir + `/objects ` + dir + `/refs && ` + evilConfig(work, marker) + ` > ` + dir + `/config && echo 'ref: refs/heads/main' > ` + dir + `/HEAD`
}

// tryAttacks runs each attack in a fresh workspace made by setUp, in both
// modes, then the host's git status where the user will stand: the
// marker must not appear.
func tryAttacks(t *testing.T, a agentEnv, setUp func(t *testing.T, ws string), attacks []gitAttack) {
	marker := filepath.Join(workspace(t), "ran")
	for _, iso := range gitModes {
		for _, tc := range attacks {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				os.Remove(marker)
				ws := workspace(t)
				setUp(t, ws)
				script := strings.ReplaceAll(tc.script, "MARKER", marker)
				r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), script)
				// With --isolation landlock the supervisor refuses to make a
				// name kept absent (EACCES): nothing appears, the payload
				// goes on.
				if tc.killed && iso.name == "full" && (r.code != 137 || !strings.Contains(r.stderr, "appeared")) {
					t.Errorf("nsrun did not end the sandbox: %v", r)
				}
				if tc.killed && iso.name == "landlock" && r.code != 0 && r.code != 137 {
					t.Errorf("the payload failed: %v", r)
				}
				if !tc.killed && r.code != 0 {
					t.Errorf("the payload failed: %v", r)
				}
				for _, w := range tc.where {
					out, err := a.hostGit(t, filepath.Join(ws, w), "status")
					if _, serr := os.Stat(marker); serr == nil {
						t.Fatalf("host git status in %s ran the payload's program (%s exists): %v\n%s\npayload: %v", w, marker, err, out, r)
					}
				}
			})
		}
	}
}

// The workspace itself, or a workspace that was no repository, does not
// become a repository of the payload's for the host's git: not a bare one
// (HEAD, objects, refs and config at its top, once its .git is broken),
// not through a commondir, not a new .git directory or file.
func TestAgentWorkspaceNotMadeARepository(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	repo := func(t *testing.T, ws string) { a.newRepo(t, ws) }
	plain := func(t *testing.T, ws string) { writeFile(t, filepath.Join(ws, "f"), "one\n") }
	bare := `echo broken > .git/HEAD && mkdir -p objects refs && ` + evilConfig("$PWD", "MARKER") + ` > config && echo 'ref: refs/heads/main' > HEAD; sleep 5`
	// The common directory's config enables the per-worktree one, which
	// names the work tree (core.worktree is not taken from a common one).
	viaCommon := `echo broken > .git/HEAD && mkdir -p .evil/objects .evil/refs && echo 'ref: refs/heads/main' > .evil/HEAD &&
printf '[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tfsmonitor = touch MARKER; false\n[extensions]\n\tworktreeConfig = true\n' > .evil/config &&
printf '[core]\n\tworktree = %s\n' "$PWD" > config.worktree && echo "$PWD/.evil" > commondir && echo 'ref: refs/heads/main' > HEAD; sleep 5`
	tryAttacks(t, a, repo, []gitAttack{
		{name: "bare at the top", script: bare, where: []string{""}, killed: true},
		{name: "bare through a commondir at the top", script: viaCommon, where: []string{""}, killed: true},
	})
	tryAttacks(t, a, plain, []gitAttack{
		{name: "a .git directory where there was none", script: `git init -q && git config core.fsmonitor "touch MARKER; false"; sleep 5`, where: []string{""}, killed: true},
		{name: "a .git file where there was none", script: evilGitDir(".evil", "$PWD", "MARKER") + ` && echo "gitdir: $PWD/.evil" > .git; sleep 5`, where: []string{""}, killed: true},
		{name: "bare where there was none", script: `mkdir -p objects refs && ` + evilConfig("$PWD", "MARKER") + ` > config && echo 'ref: refs/heads/main' > HEAD; sleep 5`, where: []string{""}, killed: true},
	})
}

// Repositories the user had anywhere in the workspace before the run get
// the protection of the workspace's own: a clone deep inside a repository
// (no submodule), one with a .git file and its git directory elsewhere in
// the workspace, a bare repository; none becomes the payload's, not by its
// configuration, not by a bare repository at its top, not by a repository
// the payload makes above it.
func TestAgentRepositoriesInsideWorkspace(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	setUp := func(t *testing.T, ws string) {
		a.newRepo(t, ws)
		a.newRepo(t, filepath.Join(ws, "third_party", "a", "b", "dep"))
		for _, d := range []string{"lib", "gitdirs"} {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		a.mustGit(t, ws, "init", "-q", "--separate-git-dir", filepath.Join(ws, "gitdirs", "sep"), filepath.Join(ws, "lib", "sep"))
		a.mustGit(t, ws, "clone", "-q", "--bare", filepath.Join(ws, "third_party", "a", "b", "dep"), filepath.Join(ws, "mirrors", "dep.git"))
	}
	dep, sep, mirror := "third_party/a/b/dep", "lib/sep", "mirrors/dep.git"
	appendFsmonitor := func(config string) string {
		return `printf '[core]\n\tfsmonitor = touch MARKER; false\n' >> ` + config + `; true`
	}
	tryAttacks(t, a, setUp, []gitAttack{
		{name: "the config of a nested clone", script: appendFsmonitor(dep + "/.git/config"), where: []string{dep}},
		{name: "a nested clone made bare", script: `cd ` + dep + ` && echo broken > .git/HEAD && mkdir -p objects refs && ` + evilConfig("$PWD", "MARKER") + ` > config && echo 'ref: refs/heads/main' > HEAD; sleep 5`,
			where: []string{dep}, killed: true},
		{name: "a repository above a nested clone", script: `echo broken > ` + dep + `/.git/HEAD && cd third_party/a && git init -q && git config core.fsmonitor "touch MARKER; false"; sleep 5`,
			where: []string{dep}, killed: true},
		{name: "the config of a separate git directory", script: appendFsmonitor("gitdirs/sep/config"), where: []string{sep}},
		{name: "the config of a bare repository", script: `git -C ` + mirror + ` config core.bare false && git -C ` + mirror + ` config core.worktree "$PWD" && ` + appendFsmonitor(mirror+"/config"),
			where: []string{mirror}},
		{name: "a .git in a bare repository", script: evilGitDir(mirror+"/.git", "$PWD/"+mirror, "MARKER") + `; sleep 5`, where: []string{mirror}, killed: true},
	})
}

// A repository the payload makes below the workspace, of any layout, is
// named afterwards: the host's git there runs its configuration.
func TestAgentMadeRepositoriesReported(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			writeFile(t, filepath.Join(ws, "src", "x.c"), "int x;\n")
			script := `set -e
mkdir -p src/dir && git -C src/dir init -q
mkdir -p src/file && ` + evilGitDir("src/.g", "$PWD/src/file", "/dev/null") + ` && echo "gitdir: $PWD/src/.g" > src/file/.git
mkdir -p src/bare && git init -q --bare src/bare`
			r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), script)
			if r.code != 0 {
				t.Fatal(r)
			}
			for _, d := range []string{"src/dir", "src/file", "src/bare", "src/.g"} {
				p := filepath.Join(ws, d)
				if !strings.Contains(r.stderr, "git: "+p+" is a repository the sandbox made") || !strings.Contains(r.stderr, `"`+p+`"`) {
					t.Errorf("%s is not named: %v", d, r)
				}
			}
		})
	}
}
