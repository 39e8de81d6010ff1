//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkHooksDir replaces the hooks directory of the repository at base
// with a symlink to to.
func linkHooksDir(t *testing.T, base, to string) {
	t.Helper()
	hooks := filepath.Join(base, ".git", "hooks")
	if err := os.RemoveAll(hooks); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, hooks); err != nil {
		t.Fatal(err)
	}
}

// linkHook makes the executable file (relative to base) a harmless hook
// and links hooks/name (relative to base) to it with the relative target
// to: a project keeping its hooks in its tree and linking them in. An
// empty file makes only the link, to a file not there yet.
func linkHook(t *testing.T, base, hooks, name, to, file string) {
	t.Helper()
	if file != "" {
		writeFile(t, filepath.Join(base, file), "#!/bin/sh\nexit 0\n")
		if err := os.Chmod(filepath.Join(base, file), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(base, hooks), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, filepath.Join(base, hooks, name)); err != nil {
		t.Fatal(err)
	}
}

// A hook in .git/hooks (or in core.hooksPath) that is a symlink to a
// script in the work tree (`ln -s ../../scripts/pre-commit
// .git/hooks/pre-commit`, a common way to share hooks) is run by host git
// through the link: the hooks directory being read-only does not keep the
// script it leads to, which the payload could rewrite, replace or (when
// missing) make. Before the fix each of the first five ran the payload's
// hook on the host's `git commit`.
func TestRedteam2LinkedHooks(t *testing.T) {
	linked := func(t *testing.T, a agentEnv, ws string) {
		linkHook(t, ws, ".git/hooks", "pre-commit", "../../scripts/pre-commit", "scripts/pre-commit")
	}
	tryHostAttacks(t, []hostAttack{
		{name: "rewrite the script a hook links to", setUp: linked,
			script: `printf '#!/bin/sh\ntouch MARKER\n' > scripts/pre-commit`},
		{name: "replace the script a hook links to", setUp: linked,
			script: hook + `mkhook x/pre-commit && mv x/pre-commit scripts/pre-commit`},
		{name: "replace the directory of the script a hook links to", setUp: linked,
			script: hook + `mv scripts s2; mkhook scripts/pre-commit`},
		{name: "make the missing script a hook links to", setUp: func(t *testing.T, a agentEnv, ws string) {
			linkHook(t, ws, ".git/hooks", "pre-commit", "../../scripts/pre-commit", "")
		}, script: hook + `mkhook scripts/pre-commit; sleep 3`},
		{name: "core.hooksPath: rewrite the script a hook links to", setUp: func(t *testing.T, a agentEnv, ws string) {
			linkHook(t, ws, ".githooks", "pre-commit", "../scripts/pre-commit", "scripts/pre-commit")
			a.mustGit(t, ws, "config", "core.hooksPath", ".githooks")
		}, script: `printf '#!/bin/sh\ntouch MARKER\n' > scripts/pre-commit`},
		// What held before: a hard link to a read-only file is refused
		// (EXDEV across the bind mount, EACCES or EXDEV by Landlock), and
		// a .git/config that is a symlink into the tree keeps its file.
		{name: "hard-link the config and a hook, write through the links", setUp: func(t *testing.T, a agentEnv, ws string) {
			writeFile(t, filepath.Join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
			if err := os.Chmod(filepath.Join(ws, ".git", "hooks", "pre-commit"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, script: `ln .git/config c && printf '[core]\n\tfsmonitor = touch MARKER; false\n' >> c; ln .git/hooks/pre-commit h && echo 'touch MARKER' >> h`},
		{name: "a config linked into the tree", setUp: func(t *testing.T, a agentEnv, ws string) {
			if err := os.Rename(filepath.Join(ws, ".git", "config"), filepath.Join(ws, "gitconfig")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../gitconfig", filepath.Join(ws, ".git", "config")); err != nil {
				t.Fatal(err)
			}
		}, script: `printf '[core]\n\tfsmonitor = touch MARKER; false\n' >> gitconfig; printf '[core]\n\tfsmonitor = touch MARKER; false\n' > c; mv c .git/config`,
			refusedLandlock: "is a symlink in the writable"},
	})
}

// The same for the repository enclosing the workspace (the agent started
// in a package of a monorepo): its git directory is read-only, but a hook
// there linked into the workspace, or its whole hooks directory a symlink
// into it, is the payload's to write. Before the fix the first two ran the
// payload's hook on the host's `git commit`.
func TestRedteam2EnclosingLinkedHooks(t *testing.T) {
	tryEncloseAttacks(t, []encloseAttack{
		{name: "a hook linked into the workspace", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj(nil, "scripts")(t, a, base)
			linkHook(t, filepath.Dir(ws), ".git/hooks", "pre-commit", "../../sub/scripts/pre-commit", "sub/scripts/pre-commit")
			return ws
		}, script: `printf '#!/bin/sh\ntouch MARKER\n' > scripts/pre-commit`},
		{name: "its hooks directory a symlink into the workspace", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj(nil, "hooks")(t, a, base)
			linkHooksDir(t, filepath.Dir(ws), "../sub/hooks")
			return ws
		}, script: hook + `mkhook hooks/pre-commit`},
		{name: "its hooks directory a symlink to a missing one in the workspace", setUp: func(t *testing.T, a agentEnv, base string) string {
			ws := inProj(nil)(t, a, base)
			linkHooksDir(t, filepath.Dir(ws), "../sub/hooks")
			return ws
		}, script: hook + `mkhook hooks/pre-commit; sleep 3`},
	})
}

// The payload runs as the user's uid: a hooks/ it plants (by renaming a
// directory within .git, so that it appears whole) with the owner's
// rights taken away (0555, a directory in it 0) kept nsrun, as that same
// user, from removing it; nsrun said so, but the hook stayed and the
// host's `git commit` ran it. (As root, modes keep nobody out: the test
// means something as another user; before the fix it failed as
// nsrun-test.)
func TestRedteam2PlantedHooksItsOwnerCannotEmpty(t *testing.T) {
	noHooks := func(t *testing.T, a agentEnv, ws string) {
		if err := os.RemoveAll(filepath.Join(ws, ".git", "hooks")); err != nil {
			t.Fatal(err)
		}
	}
	tryHostAttacks(t, []hostAttack{
		{name: "a hooks/ made 0555", setUp: noHooks,
			script: hook + `mkhook .git/h/pre-commit && chmod 555 .git/h && mv .git/h .git/hooks; sleep 3; chmod -R u+rwx .git/h`},
		{name: "a hooks/ made 0555 with a directory 0 in it", setUp: noHooks,
			script: hook + `mkhook .git/h/pre-commit && mkdir .git/h/x && chmod 0 .git/h/x && chmod 555 .git/h && mv .git/h .git/hooks; sleep 3; chmod -R u+rwx .git/h`},
	})
}

// Configuration variables whose value git runs that the list lacked:
// tar.FORMAT.command (git archive's compressor) named a program in the
// workspace that the host's `git archive --format=tgz` then ran. Before
// the fix it ran the payload's.
func TestRedteam2ArchiveCompressor(t *testing.T) {
	tryHostAttacks(t, []hostAttack{
		{name: "tar.tgz.command", setUp: func(t *testing.T, a agentEnv, ws string) {
			writeFile(t, filepath.Join(ws, "tools", "compress"), "#!/bin/sh\nexec gzip -cn\n")
			if err := os.Chmod(filepath.Join(ws, "tools", "compress"), 0o755); err != nil {
				t.Fatal(err)
			}
			a.mustGit(t, ws, "config", "tar.tgz.command", "./tools/compress")
		}, script: `printf '#!/bin/sh\ntouch MARKER\nexec gzip -cn\n' > tools/compress`,
			host: [][]string{{"archive", "--format=tgz", "-o", "/dev/null", "HEAD"}}},
	})
}

// A hook that is a hard link of a file in the work tree (`ln
// scripts/pre-commit .git/hooks/pre-commit`) is one file under two
// names: the hooks directory read-only does not keep the payload from
// writing it through the other. nsrun cannot find that other name
// without a stat of every file in the workspace; it says so before the
// run, naming the hook.
func TestRedteam2HardLinkedHookNamed(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			writeFile(t, filepath.Join(ws, "scripts", "pre-commit"), "#!/bin/sh\nexit 0\n")
			h := filepath.Join(ws, ".git", "hooks", "pre-commit")
			if err := os.Link(filepath.Join(ws, "scripts", "pre-commit"), h); err != nil {
				t.Fatal(err)
			}
			r := a.run(t, ws, iso.args, "true")
			if r.code != 0 || !strings.Contains(r.stderr, h+" has 2 hard links") {
				t.Errorf("not named: %v", r)
			}
		})
	}
}

// A remote whose URL is a path in the workspace where nothing is yet: the
// payload makes a bare repository there with a hook, and the host's
// `git push` to that remote runs it (receive-pack runs the receiving
// repository's hooks). The path is kept absent, as any path the
// configuration names for git to run or read.
func TestRedteam2LocalRemoteInTheWorkspace(t *testing.T) {
	remote := func(url string) func(t *testing.T, a agentEnv, ws string) {
		return func(t *testing.T, a agentEnv, ws string) {
			a.mustGit(t, ws, "remote", "add", "backup", url)
		}
	}
	plant := hook + `git init -q --bare backup.git 2>/dev/null || mkdir -p backup.git; mkhook backup.git/hooks/pre-receive; mkhook backup.git/hooks/post-receive`
	push := [][]string{{"push", "-q", "backup", "HEAD:refs/heads/x"}}
	tryHostAttacks(t, []hostAttack{
		{name: "a relative path", setUp: remote("backup.git"), script: plant, host: push},
		{name: "a ./ path", setUp: remote("./backup.git"), script: plant, host: push},
		{name: "a pushurl", setUp: func(t *testing.T, a agentEnv, ws string) {
			a.mustGit(t, ws, "remote", "add", "backup", "https://example.invalid/x.git")
			a.mustGit(t, ws, "remote", "set-url", "--push", "backup", filepath.Join(ws, "backup.git"))
		}, script: plant, host: push},
		{name: "a file URL", setUp: func(t *testing.T, a agentEnv, ws string) {
			a.mustGit(t, ws, "remote", "add", "backup", "file://"+filepath.Join(ws, "backup.git"))
		}, script: plant, host: push},
		{name: "an empty directory", setUp: func(t *testing.T, a agentEnv, ws string) {
			if err := os.Mkdir(filepath.Join(ws, "backup.git"), 0o755); err != nil {
				t.Fatal(err)
			}
			a.mustGit(t, ws, "remote", "add", "backup", "backup.git")
		}, script: plant, host: push},
		// What held: a bare repository there already is found by the
		// walk, and its hooks are read-only.
		{name: "a bare repository there", setUp: func(t *testing.T, a agentEnv, ws string) {
			a.mustGit(t, ws, "init", "-q", "--bare", "backup.git")
			a.mustGit(t, ws, "remote", "add", "backup", "backup.git")
		}, script: plant, host: push},
	})
}
