//go:build linux

package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// absentReport is the "absent" part of the report.
type absentReport struct {
	Absent *struct {
		Watched  []string `json:"watched"`
		Appeared []struct {
			Path    string `json:"path"`
			Removed bool   `json:"removed"`
		} `json:"appeared"`
	} `json:"absent"`
}

// A path the agent preset keeps absent stays absent whatever the payload
// does to the directories on its way: exchanging, renaming, removing or
// replacing one (by a symlink too), renaming a prepared directory into
// place, a hard link at the name, a path through "..", a mount over a
// directory (refused: no mount reaches the host anyway). In both modes, each
// such change is refused (full isolation: the directories are pinned,
// EBUSY; --isolation landlock: the name and the directories on its way
// are not the payload's to change, EACCES) or nsrun ends the sandbox and
// removes what appeared. Afterwards the path does not exist on the host,
// the host's git commit (or status) runs nothing of the payload's, and
// the exit status and the report say the same as nsrun's message.
func TestAgentAbsentPathsHeld(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	marker := filepath.Join(workspace(t), "ran")
	h := helperBin
	// prep makes DIR/hooks/pre-commit and DIR/fsmon, both touching the marker.
	prep := func(dir string) string {
		return `mkdir -p ` + dir + `/hooks && printf '#!/bin/sh\ntouch ` + marker + `\n' > ` + dir + `/hooks/pre-commit && chmod +x ` + dir + `/hooks/pre-commit && cp ` + dir + `/hooks/pre-commit ` + dir + `/fsmon; `
	}
	say := func(args ...string) string { return `echo "$(` + h + ` ` + strings.Join(args, " ") + `)"; ` }
	type outcome struct {
		out    string // the payload's lines, "" when it was killed
		killed bool   // nsrun ended it: the absent path appeared
	}
	for _, tc := range []struct {
		name     string
		config   [][2]string // git configuration of the workspace
		dirs     []string    // directories the workspace has
		absent   string      // the path kept absent, relative
		script   string
		full, ll outcome
	}{
		{name: "exchange the parent", dirs: []string{"tools"}, absent: "tools/hooks",
			script: prep("tools.new") + say("exchange", "tools", "tools.new"),
			full:   outcome{out: "EBUSY"}, ll: outcome{out: "EACCES"}},
		{name: "exchange the parent through ..", dirs: []string{"tools"}, absent: "tools/hooks",
			script: prep("tools.new") + say("exchange", "tools.new/../tools", "tools.new"),
			full:   outcome{out: "EBUSY"}, ll: outcome{out: "EACCES"}},
		{name: "exchange a grandparent", config: [][2]string{{"core.hooksPath", "a/b/hooks"}}, dirs: []string{"a/b"}, absent: "a/b/hooks",
			script: `mkdir a.new && ` + prep("a.new/b") + say("exchange", "a", "a.new"),
			full:   outcome{out: "EBUSY"}, ll: outcome{out: "EACCES"}},
		{name: "rename the parent away and another in", dirs: []string{"tools"}, absent: "tools/hooks",
			script: prep("tools.new") + say("rename", "tools", "tools.old") + `rmdir tools 2>/dev/null; ` + say("rename", "tools.new", "tools"),
			full:   outcome{out: "EBUSY\nEBUSY"}, ll: outcome{out: "EACCES\nEACCES"}},
		{name: "remove the parent and make it again", dirs: []string{"tools"}, absent: "tools/hooks",
			script: say("rmdir", "tools") + `mkdir -p tools/hooks 2>/dev/null; ` + prep("tools") + `echo done`,
			full:   outcome{killed: true}, ll: outcome{out: "EACCES\ndone"}},
		{name: "a symlink for the parent", dirs: []string{"tools"}, absent: "tools/hooks",
			script: prep("tools.new") + say("rename", "tools", "tools.old") + say("symlink", "tools.new", "tools"),
			full:   outcome{out: "EBUSY\nEEXIST"}, ll: outcome{out: "EACCES\nEEXIST"}},
		{name: "a symlink for a missing parent", absent: "tools",
			script: prep("tools.new") + say("symlink", "tools.new", "tools"),
			full:   outcome{killed: true}, ll: outcome{out: "EACCES"}},
		{name: "make a missing parent and the name", absent: "tools",
			script: say("mkdir", "tools") + say("mkdir", "tools/hooks"),
			full:   outcome{killed: true}, ll: outcome{out: "EACCES\nENOENT"}},
		{name: "rename a prepared parent into place", absent: "tools",
			script: prep("tools.new") + say("rename", "tools.new", "tools"),
			full:   outcome{killed: true}, ll: outcome{out: "EACCES"}},
		{name: "rename a prepared name into place", dirs: []string{"tools"}, absent: "tools/hooks",
			script: prep("tools.new") + say("rename", "tools.new/hooks", "tools/hooks"),
			full:   outcome{out: "EXDEV"}, ll: outcome{out: "EACCES"}},
		{name: "mount over the parent", dirs: []string{"tools"}, absent: "tools/hooks",
			script: say("mount", "tools") + say("mkdir", "tools/hooks"),
			full:   outcome{killed: true}, ll: outcome{out: "EPERM\nEACCES"}},
		{name: "a hard link at the name", config: [][2]string{{"core.fsmonitor", "tools/fsmon"}}, dirs: []string{"tools"}, absent: "tools/fsmon",
			script: prep("x") + say("link", "x/fsmon", "tools/fsmon"),
			full:   outcome{out: "EXDEV"}, ll: outcome{out: "EACCES"}},
	} {
		for _, mode := range []string{"full", "landlock"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				os.Remove(marker)
				ws := workspace(t)
				a.newRepo(t, ws)
				config := tc.config
				if config == nil {
					config = [][2]string{{"core.hooksPath", "tools/hooks"}}
				}
				for _, kv := range config {
					a.mustGit(t, ws, "config", kv[0], kv[1])
				}
				for _, d := range tc.dirs {
					if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				ids := map[string]uint64{}
				for _, d := range tc.dirs {
					for p := d; p != "."; p = filepath.Dir(p) {
						ids[p] = inode(t, filepath.Join(ws, p))
					}
				}
				args, want := []string{"--report", "-"}, tc.full
				if mode == "landlock" {
					args, want = append(args, "--isolation", "landlock", "--ro", filepath.Dir(helperBin)), tc.ll
				}
				script := tc.script
				if want.killed {
					// Killed before it could exit on its own.
					script += "\nsleep 5"
				}
				r := a.run(t, ws, args, script)
				absentPath := filepath.Join(ws, tc.absent)
				report := absentPart(t, r.stderr)
				if report.Absent == nil || !contains(report.Absent.Watched, absentPath) {
					t.Fatalf("%s is not kept absent: %v", absentPath, r)
				}
				if want.killed {
					if r.code != 137 || !strings.Contains(r.stderr, absentPath+" appeared") || !strings.Contains(r.stderr, "the sandbox was ended") {
						t.Errorf("nsrun did not end the sandbox: %v", r)
					}
					if len(report.Absent.Appeared) == 0 || !report.Absent.Appeared[0].Removed {
						t.Errorf("the report does not say what appeared: %s", r.stderr)
					}
				} else {
					if r.code != 0 || r.stdout != want.out {
						t.Errorf("want exit 0 and %q: %v", want.out, r)
					}
					if strings.Contains(r.stderr, absentPath+" appeared") || len(report.Absent.Appeared) != 0 {
						t.Errorf("something appeared: %v", r)
					}
					for p, ino := range ids {
						if got := inode(t, filepath.Join(ws, p)); got != ino {
							t.Errorf("%s was replaced on the host", p)
						}
					}
				}
				if _, err := os.Stat(absentPath); !os.IsNotExist(err) {
					t.Errorf("%s resolves on the host: %v; payload: %v", absentPath, err, r)
				}
				for _, args := range [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "host"}} {
					if out, err := a.hostGit(t, ws, args...); err != nil {
						t.Errorf("host git %v: %v\n%s", args, err, out)
					}
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("host git ran the payload's program; payload: %v", r)
				}
			})
		}
	}
}

// absentPart decodes the "absent" part of the JSON report on stderr, which
// follows nsrun's messages.
func absentPart(t *testing.T, stderr string) absentReport {
	t.Helper()
	var rep absentReport
	i := strings.Index(stderr, "{\n")
	if i < 0 {
		t.Fatalf("no report in %q", stderr)
	}
	if err := json.NewDecoder(strings.NewReader(stderr[i:])).Decode(&rep); err != nil {
		t.Fatalf("the report: %v\n%s", err, stderr)
	}
	return rep
}

// The watcher is a second line behind that: a directory on the way that
// changes all the same (here the host exchanges it, as nothing in the
// sandbox can) ends the sandbox; what the path resolves to afterwards is
// removed, and the message and the report say which directory changed.
func TestAgentAbsentWayChangedOutside(t *testing.T) {
	need(t)
	a := newAgentEnv(t)
	for _, mode := range []string{"full", "landlock"} {
		t.Run(mode, func(t *testing.T) {
			ws := workspace(t)
			a.newRepo(t, ws)
			a.mustGit(t, ws, "config", "core.hooksPath", "tools/hooks")
			marker := filepath.Join(workspace(t), "ran")
			writeFile(t, filepath.Join(ws, "tools", "keep"), "")
			writeFile(t, filepath.Join(ws, "tools.new", "hooks", "pre-commit"), "#!/bin/sh\ntouch "+marker+"\n")
			os.Chmod(filepath.Join(ws, "tools.new", "hooks", "pre-commit"), 0o755)
			report := filepath.Join(workspace(t), "report.json")
			args := []string{"--preset", "agent", "--report", report}
			if mode == "landlock" {
				args = append(args, "--isolation", "landlock")
			}
			cmd := exec.Command(nsrunBin, append(args, "--", "/bin/sh", "-c", "echo ready; exec sleep 30")...)
			cmd.Dir = ws
			cmd.Env = append(cleanEnv(), a.env...)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%q instead of ready: %s", line, stderr.String())
			}
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(ws, "tools"), unix.AT_FDCWD, filepath.Join(ws, "tools.new"), unix.RENAME_EXCHANGE); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			tools, hooks := filepath.Join(ws, "tools"), filepath.Join(ws, "tools", "hooks")
			if code := cmd.ProcessState.ExitCode(); code != 137 ||
				!strings.Contains(stderr.String(), tools+", on the way to "+hooks+", was moved, removed or replaced") ||
				!strings.Contains(stderr.String(), "the directory at "+hooks+" was removed; the sandbox was ended") {
				t.Errorf("exit %d: %s", code, stderr.String())
			}
			var rep struct {
				Absent struct {
					Appeared []struct {
						Path, Way, Kind string
						Removed         bool
					} `json:"appeared"`
				} `json:"absent"`
			}
			if err := json.Unmarshal([]byte(readFile(t, report)), &rep); err != nil {
				t.Fatal(err)
			}
			if ap := rep.Absent.Appeared; len(ap) != 1 || ap[0].Path != hooks || ap[0].Way != tools || ap[0].Kind != "directory" || !ap[0].Removed {
				t.Errorf("report: %+v", ap)
			}
			if _, err := os.Stat(hooks); !os.IsNotExist(err) {
				t.Errorf("%s resolves: %v", hooks, err)
			}
			if out, err := a.hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "host"); err != nil {
				t.Errorf("host git commit: %v\n%s", err, out)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("host git ran the hook")
			}
		})
	}
}

// cleanEnv is this process's environment without git, XDG and HOME
// variables, as runClean passes it.
func cleanEnv() []string {
	var clean []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GIT_") && !strings.HasPrefix(k, "XDG_") && k != "HOME" && k != "EMAIL" {
			clean = append(clean, kv)
		}
	}
	return clean
}
