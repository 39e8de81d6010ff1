//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The report in the workspace cannot be forged: it is written once the
// sandbox is gone, as a new file renamed over the name, so whatever the
// payload planted there (a forged report, a symlink to a host file, a
// directory) is replaced and nothing is written through it.
func TestReportCannotBeForged(t *testing.T) {
	const forged = `{"exit": {"code": 0}, "enforcement": "full"}`
	victimDir := workspace(t)
	victim := filepath.Join(victimDir, "victim")
	for _, mode := range []string{"full", "landlock"} {
		for _, tc := range []struct {
			name  string
			plant string // shell run inside, in the workspace; $R is the report's path
		}{
			{"a forged file", `echo '` + forged + `' > "$R"`},
			{"a file renamed over it", `echo '` + forged + `' > f && mv f "$R"`},
			{"a symlink to a host file", `rm -f "$R"; ln -s ` + victim + ` "$R"`},
			{"a dangling symlink", `rm -f "$R"; ln -s ` + filepath.Join(victimDir, "new") + ` "$R"`},
			{"a directory", `rm -f "$R"; mkdir -p "$R/sub" && echo '` + forged + `' > "$R/sub/x"`},
			{"a forged file in a directory made read-only", `echo '` + forged + `' > "$R" && chmod 0555 .`},
		} {
			ws := workspace(t)
			writeFile(t, victim, "host")
			rep := filepath.Join(ws, "report.json")
			r := runEnv(t, ws, []string{"R=" + rep}, "--isolation", mode, "--rw", ws, "--report", rep, "--", "/bin/sh", "-c", tc.plant+"; exit 3")
			what := mode + ", " + tc.name
			if r.code != 3 {
				t.Errorf("%s: %v", what, r)
				continue
			}
			fi, err := os.Lstat(rep)
			if err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s: the report is not a regular file: %v %v", what, fi, err)
				continue
			}
			if got := readFile(t, rep); !strings.Contains(got, `"code": 3`) || strings.Contains(got, forged) {
				t.Errorf("%s: report:\n%s", what, got)
			}
			expect(t, what+": the host file", readFile(t, victim), "host")
			if _, err := os.Lstat(filepath.Join(victimDir, "new")); !os.IsNotExist(err) {
				t.Errorf("%s: a file was created through the dangling link", what)
			}
			if ents, _ := os.ReadDir(ws); len(ents) != 1 {
				t.Errorf("%s: the workspace holds %v, not just the report", what, ents)
			}
			os.Chmod(ws, 0o755)
		}
	}
}

// The report's directory moved away and replaced by a new one: the report
// goes to the path as named. Replaced by a symlink: nothing is written
// through it, and nsrun says so with exit 125.
func TestReportDirectoryReplaced(t *testing.T) {
	victimDir := workspace(t)
	for _, mode := range []string{"full", "landlock"} {
		ws := workspace(t)
		sub := filepath.Join(ws, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		rep := filepath.Join(sub, "r.json")
		r := run(t, ws, "--isolation", mode, "--rw", ws, "--report", rep, "--", "/bin/sh", "-c", "mv sub moved && mkdir sub")
		if r.code != 0 || !strings.Contains(readFile(t, rep), `"code": 0`) {
			t.Errorf("%s: directory renamed and made again: %v", mode, r)
		}
		if _, err := os.Stat(filepath.Join(ws, "moved", "r.json")); !os.IsNotExist(err) {
			t.Errorf("%s: the report followed the renamed directory", mode)
		}
		r = run(t, ws, "--isolation", mode, "--rw", ws, "--report", rep, "--", "/bin/sh", "-c", "rm -rf sub && ln -s "+victimDir+" sub")
		if r.code != 125 || !strings.Contains(r.stderr, "--report "+rep) || !strings.Contains(r.stderr, "symlink") {
			t.Errorf("%s: directory replaced by a symlink: %v", mode, r)
		}
		if ents, _ := os.ReadDir(victimDir); len(ents) != 0 {
			t.Errorf("%s: written through the symlink: %v", mode, ents)
		}
	}
}

// In full mode a process the payload left behind is dead before the
// report is written: its last word cannot be the report.
func TestReportWrittenAfterTheSandboxIsDead(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	r := run(t, ws, "--rw", ws, "--report", rep, "--", "/bin/sh", "-c",
		`(while :; do echo forged > r.new; mv r.new r.json; done) & sleep 0.2; exit 5`)
	if r.code != 5 || !strings.Contains(readFile(t, rep), `"code": 5`) {
		t.Errorf("%v\n%s", r, readFile(t, rep))
	}
}

// "-" is stderr, /dev/fd/N a descriptor nsrun was given; a report that
// cannot be placed is refused before anything runs.
func TestReportTargets(t *testing.T) {
	ws := workspace(t)
	r := run(t, ws, "--report", "-", "--", "/bin/sh", "-c", "exit 2")
	if r.code != 2 || !strings.Contains(r.stderr, `"code": 2`) {
		t.Errorf("--report -: %v", r)
	}
	out := filepath.Join(ws, "fd3")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nsrunBin, "--report", "/dev/fd/3", "--", "/bin/true")
	cmd.ExtraFiles = []*os.File{f}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("--report /dev/fd/3: %v %s", err, b)
	}
	f.Close()
	if got := readFile(t, out); !strings.Contains(got, `"code": 0`) {
		t.Errorf("--report /dev/fd/3 wrote %q", got)
	}
	marker := filepath.Join(ws, "ran")
	for _, bad := range []string{filepath.Join(ws, "no", "such", "r.json"), ws} {
		r := run(t, ws, "--report", bad, "--", "/bin/touch", marker)
		if r.code != 125 || !strings.Contains(r.stderr, "--report "+bad) {
			t.Errorf("--report %s: %v", bad, r)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
}
