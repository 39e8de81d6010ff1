//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A repository the payload makes in the workspace is named after the run
// (docs/AGENT.md): host git there runs its configuration, and the user's
// shell prompt after `cd src/app` runs host git. The walk that looks for
// them after the run must not be kept from a directory by the payload:
//
//   - names that match git's only when case is ignored (Head, Objects,
//     Refs in src; a directory named .GIT): the walk took src for a git
//     directory, or .GIT for the .git, and did not look inside, while on
//     a file system where case matters host git sees an ordinary
//     directory and finds src/app/.git;
//   - a directory the payload made unreadable (chmod 0311: host git, and
//     the user's cd, need only search permission): the walk passed over
//     it without a word as any user but root.
//
// Both modes, root and a user; before, no warning named src/app and
// host git status there ran the payload's fsmonitor.
func TestRedteamMadeRepositoryHiddenFromTheWalk(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	makeRepo := `mkdir -p DIR && git -C DIR init -q && git -C DIR config core.fsmonitor "touch MARKER; false"`
	for _, iso := range gitModes {
		for _, tc := range []struct {
			name, script, repo, unreadable string
		}{
			{name: "git's names in another case", repo: "src/app",
				script: `mkdir -p src/Objects src/Refs && : > src/Head && ` + makeRepo},
			{name: "a .GIT directory", repo: "src/.GIT/app", script: makeRepo},
			{name: "an unreadable directory", repo: "src/app", unreadable: "src",
				script: makeRepo + ` && chmod 0311 src`},
		} {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				os.Remove(marker)
				ws := workspace(t)
				t.Cleanup(func() { os.Chmod(filepath.Join(ws, "src"), 0o755) })
				a.newRepo(t, ws)
				script := strings.NewReplacer("DIR", tc.repo, "MARKER", marker).Replace(tc.script)
				r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), script)
				if r.code != 0 {
					t.Fatalf("the payload failed: %v", r)
				}
				repo := filepath.Join(ws, tc.repo)
				named := strings.Contains(r.stderr, "git: "+repo+" is a repository the sandbox made")
				if tc.unreadable != "" && os.Geteuid() != 0 {
					// A user's nsrun cannot read it either: it must say so.
					named = named || strings.Contains(r.stderr, "git: cannot read "+filepath.Join(ws, tc.unreadable))
				}
				if !named {
					t.Errorf("%s is not named after the run: %v", repo, r)
				}
				// What the user would run there next, as the test shows it
				// would run the payload's program.
				out, err := a.hostGit(t, repo, "status")
				if _, serr := os.Stat(marker); serr == nil && !named {
					t.Errorf("and host git status there ran the payload's program (%v)\n%s", err, out)
				}
			})
		}
	}
}

// A directory whose .git git passes over (a FIFO or a socket, which a
// payload of an earlier run may leave; a symlink leading nowhere) was
// taken for a work tree found: the payload replaced the .git with a
// repository of its own (or made the git directory the symlink leads to),
// neither ended nor named after the run (the directory was among those
// found before it), and host git status there ran its fsmonitor. Both
// modes, root and a user.
func TestRedteamDotgitGitPassesOver(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	replace := `rm -f src/.git && git -C src init -q && git -C src config core.fsmonitor "touch MARKER; false"`
	for _, iso := range gitModes {
		for _, tc := range []struct{ name, setUp, script string }{
			{"a FIFO replaced", "mkfifo src/.git", replace},
			{"a symlink leading nowhere outside, replaced", "ln -s /nonexistent/repo.git src/.git", replace},
			{"a symlink leading nowhere inside, replaced", "ln -s ../gitdirs/src.git src/.git", replace},
			{"a symlink leading nowhere inside, its git directory made", "ln -s ../gitdirs/src.git src/.git",
				evilGitDir("gitdirs/src.git", "$PWD/src", "MARKER")},
		} {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				os.Remove(marker)
				ws := workspace(t)
				a.newRepo(t, ws)
				if out, err := exec.Command("/bin/sh", "-c", "cd "+ws+" && mkdir src && "+tc.setUp).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tc.setUp, err, out)
				}
				r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), strings.ReplaceAll(tc.script, "MARKER", marker)+"\ntrue")
				if r.code != 0 && r.code != 137 {
					t.Errorf("the payload neither ended nor was ended: %v", r)
				}
				if r.code == 0 && !strings.Contains(r.stderr, " is a repository the sandbox made") {
					out, err := a.hostGit(t, filepath.Join(ws, "src"), "status")
					if _, serr := os.Stat(marker); serr == nil {
						t.Errorf("the payload made src a repository of its own, unnamed, and host git status there ran its program (%v)\n%s\npayload: %v", err, out, r)
					}
				}
			})
		}
	}
}

// A .git file in the workspace naming a git directory that does not exist
// (a linked worktree or a submodule whose git directory is gone, a checkout
// copied from elsewhere): git in that work tree stops with an error, until
// a git directory appears where the file points, which it then uses with
// its configuration. The payload made one there, inside the repository's
// .git where the walk after the run does not look: the sandbox was not
// ended, nothing was named (the work tree was among those found before the
// run), and host git status in it ran the payload's fsmonitor. The name is
// now kept absent, as for a .git file above the workspace.
func TestRedteamDotgitFileNamingNothing(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	for _, iso := range gitModes {
		for _, tc := range []struct{ name, gitdir, script string }{
			{"in .git", "../.git/worktrees/wt", evilGitDir(".git/worktrees/wt", "$PWD/wt", "MARKER")},
			{"beside", "../gitdirs/wt", evilGitDir("gitdirs/wt", "$PWD/wt", "MARKER")},
		} {
			t.Run(iso.name+"/"+tc.name, func(t *testing.T) {
				os.Remove(marker)
				ws := workspace(t)
				a.newRepo(t, ws)
				writeFile(t, filepath.Join(ws, "wt", ".git"), "gitdir: "+tc.gitdir+"\n")
				// The sleep: nsrun ends the sandbox when the name appears,
				// which the script may see fail first.
				r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), strings.ReplaceAll(tc.script, "MARKER", marker)+"\nsleep 5")
				ended := r.code == 137 && strings.Contains(r.stderr, "appeared")
				refused := iso.name == "landlock" && strings.Contains(r.stderr, "Permission denied")
				named := r.code == 0 && strings.Contains(r.stderr, " is a repository the sandbox made")
				if !ended && !refused && !named {
					t.Errorf("the git directory was made, neither refused, ended nor named: %v", r)
				}
				out, err := a.hostGit(t, filepath.Join(ws, "wt"), "status")
				if _, serr := os.Stat(marker); serr == nil && !named {
					t.Errorf("host git status in wt ran the payload's program (%v)\n%s\npayload: %v", err, out, r)
				}
			})
		}
	}
}

// The same through a linked worktree's commondir naming a directory that
// does not exist (its main repository gone): host git in the work tree
// takes the configuration of a git directory made there.
func TestRedteamCommondirNamingNothing(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			os.Remove(marker)
			ws := workspace(t)
			a.newRepo(t, ws)
			writeFile(t, filepath.Join(ws, "wt", ".git"), "gitdir: ../gitdirs/wt\n")
			writeFile(t, filepath.Join(ws, "gitdirs", "wt", "HEAD"), "ref: refs/heads/main\n")
			writeFile(t, filepath.Join(ws, "gitdirs", "wt", "commondir"), "../../.git/shared\n")
			r := a.run(t, ws, append([]string{"--report", "-"}, iso.args...), evilGitDir(".git/shared", "$PWD/wt", marker)+"\nsleep 5")
			ended := r.code == 137 && strings.Contains(r.stderr, "appeared")
			refused := iso.name == "landlock" && strings.Contains(r.stderr, "Permission denied")
			if !ended && !refused {
				t.Errorf("the common git directory was made, neither refused nor ended: %v", r)
			}
			out, err := a.hostGit(t, filepath.Join(ws, "wt"), "status")
			if _, serr := os.Stat(marker); serr == nil {
				t.Errorf("host git status in wt ran the payload's program (%v)\n%s\npayload: %v", err, out, r)
			}
		})
	}
}

// forgeStat is a payload that changes a tracked file (Makefile) and then
// writes into the index, for its entry, the file's new stat data beside
// the old object id, with no flag set: host git status and git diff trust
// the stat data and show nothing, as they would for an entry marked
// assume-unchanged, which nsrun names (TestAgentHiddenChangesReported).
const forgeStat = `
import hashlib, os, struct, time
with open("Makefile", "a") as f: f.write("\ttouch /tmp/owned\n")
time.sleep(1.2)  # not racily clean: git would look at the content again
st = os.stat("Makefile")
b = bytearray(open(".git/index", "rb").read())
off = 12
for i in range(struct.unpack(">I", b[8:12])[0]):
    n = struct.unpack(">H", b[off+60:off+62])[0] & 0xfff
    if bytes(b[off+62:off+62+n]) == b"Makefile":
        mode = struct.unpack(">I", b[off+24:off+28])[0]
        struct.pack_into(">10I", b, off, int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime), st.st_mtime_ns % 10**9,
                         st.st_dev & 0xffffffff, st.st_ino & 0xffffffff, mode, st.st_uid, st.st_gid, st.st_size)
    off += (62 + n + 8) & ~7
body = bytes(b[:-20])
open(".git/index", "wb").write(body + hashlib.sha1(body).digest())
`

// A change to a tracked file hidden from host git status and git diff
// by stat data written into the index (no assume-unchanged or
// skip-worktree flag): the user reviews the payload's work with git
// status and git diff (docs/AGENT.md), sees nothing, and runs make. nsrun
// named none. Both modes, root and a user (where the file's group maps
// into the sandbox, as the user's own group does).
func TestRedteamIndexStatHidesAChange(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			writeFile(t, filepath.Join(ws, "Makefile"), "all:\n\techo build\n")
			a.mustGit(t, ws, "add", "Makefile")
			a.mustGit(t, ws, "commit", "-qm", "make")
			// The index older than a second than the run: its entries are not racy.
			time.Sleep(1100 * time.Millisecond)
			r := a.run(t, ws, iso.args, "/usr/bin/python3 -c '"+forgeStat+"'")
			if r.code != 0 {
				t.Fatalf("the payload failed: %v", r)
			}
			if !strings.Contains(readFile(t, filepath.Join(ws, "Makefile")), "/tmp/owned") {
				t.Fatalf("the payload did not change the Makefile: %v", r)
			}
			st, diff := a.mustGit(t, ws, "status", "--porcelain"), a.mustGit(t, ws, "diff", "--stat")
			if st == "" && diff == "" && !strings.Contains(r.stderr, "Makefile") {
				t.Errorf("the change to the Makefile shows neither in host git status and git diff nor in nsrun's warnings: %v", r)
			}
		})
	}
}

// Your own git configuration in a writable place (`--rw ~/.config`, for
// a tool's settings): the payload wrote ~/.config/git/config, which host
// git reads in every repository, and the next git status anywhere ran
// its fsmonitor. The protection read that file for the paths it names
// but did not protect the file itself.
func TestRedteamGlobalConfigWritable(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	cfg := filepath.Join(a.home, ".config")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, iso := range gitModes {
		t.Run(iso.name, func(t *testing.T) {
			os.Remove(marker)
			os.RemoveAll(filepath.Join(cfg, "git"))
			ws := workspace(t)
			a.newRepo(t, ws)
			script := `mkdir -p ` + cfg + `/git && printf '[core]\n\tfsmonitor = touch ` + marker + `; false\n' > ` + cfg + `/git/config`
			r := a.run(t, ws, append([]string{"--rw", cfg}, iso.args...), script+"\nsleep 5")
			if r.code != 0 && r.code != 137 {
				t.Errorf("the payload neither ended nor was ended: %v", r)
			}
			out, err := a.hostGit(t, ws, "status")
			if _, serr := os.Stat(marker); serr == nil {
				t.Errorf("host git status ran the payload's program from %s/git/config (%v)\n%s\npayload: %v", cfg, err, out, r)
			}
		})
	}
}
