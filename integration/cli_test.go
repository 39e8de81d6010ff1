//go:build linux

package integration

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input is one line naming the option, the value and the reason, exit
// 125, and nothing runs.
func TestBadInputIsRefused(t *testing.T) {
	ws := workspace(t)
	file := filepath.Join(ws, "file")
	writeFile(t, file, "x")
	sock := filepath.Join(ws, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	marker := filepath.Join(ws, "ran")
	for _, tc := range []struct {
		name string
		args []string
		want []string // all must appear in the message
	}{
		{"missing path", []string{"--ro", "/no/such/dir"}, []string{"--ro", "/no/such/dir", "no such file"}},
		{"missing relative path", []string{"--rw", "no-such-rel"}, []string{"--rw", "no-such-rel", "no such file"}},
		{"chdir to a file", []string{"--chdir", file}, []string{"--chdir", file, "not a directory"}},
		{"root a file", []string{"--root", file}, []string{"--root", file, "not a directory"}},
		{"tmpfs on a file", []string{"--tmpfs", file}, []string{"--tmpfs", file, "not a directory"}},
		{"socket as tmpfs", []string{"--tmpfs", sock}, []string{"--tmpfs", sock, "socket"}},
		{"device as rw", []string{"--rw", "/dev/null"}, []string{"--rw", "/dev/null"}},
		{"rule on /proc", []string{"--ro", "/proc/self"}, []string{"--ro", "/proc"}},
		{"unknown option", []string{"--frobnicate"}, []string{"unknown option --frobnicate"}},
		{"malformed env", []string{"--env", "NOEQUALS"}, []string{"--env", "NOEQUALS", "KEY=VALUE"}},
		{"empty env name", []string{"--env", "=x"}, []string{"--env", "=x"}},
		{"invalid timeout", []string{"--timeout", "soon"}, []string{"--timeout", "soon"}},
		{"negative timeout", []string{"--timeout", "-5s"}, []string{"--timeout", "-5s", "positive"}},
		{"uid outside the map", []string{"--uid", "4294967295"}, []string{"--uid", "4294967295", "outside"}},
		{"uid not a number", []string{"--uid", "root"}, []string{"--uid", "root"}},
		{"bad net", []string{"--net", "bridge"}, []string{"--net", "bridge", "none or host"}},
		{"missing value", []string{"--rw"}, []string{"--rw", "needs a value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"--rw", ws}, tc.args...), "--", "/bin/touch", marker)
			if tc.name == "missing value" {
				args = []string{"--rw"}
			}
			r := run(t, ws, args...)
			if r.code != 125 {
				t.Errorf("exit %d, want 125: %v", r.code, r)
			}
			if strings.Count(r.stderr, "\n") != 0 || !strings.HasPrefix(r.stderr, "nsrun: ") {
				t.Errorf("want one line starting with nsrun:, got %q", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("message %q lacks %q", r.stderr, w)
				}
			}
			if _, err := os.Stat(marker); !os.IsNotExist(err) {
				t.Errorf("the command ran")
			}
		})
	}
	r := run(t, ws, "--rw", ws)
	if r.code != 125 || !strings.Contains(r.stderr, "no command") {
		t.Errorf("empty command: %v", r)
	}
}

func TestDenyCoversButDeeperGrantShows(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "secrets", "public", "a"), "a")
	writeFile(t, filepath.Join(ws, "secrets", "private"), "p")
	r := run(t, ws, "--deny", filepath.Join(ws, "secrets"), "--ro", filepath.Join(ws, "secrets", "public"), "--", "/bin/ls", "-A", filepath.Join(ws, "secrets"))
	expect(t, "ls", r.stdout, "public")
}

func TestReportJSON(t *testing.T) {
	ws := workspace(t)
	report := filepath.Join(ws, "report.json")
	r := run(t, ws, "--rw", ws, "--report", report, "--", "/bin/sh", "-c", "exit 4")
	if r.code != 4 {
		t.Fatal(r)
	}
	got := readFile(t, report)
	for _, want := range []string{
		`"version": 1`, `"enforcement": "full"`, `"profile": "default"`, `"user": true`, `"net": true`,
		`"rw": [` + "\n      \"" + ws + `"`, `"landlock": {` + "\n    \"status\": \"full\"",
		`"code": 4`, `"signal": null`, `"timed_out": false`, `"/tmp"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	r = run(t, ws, "--report", report, "--timeout", "200ms", "--", "/bin/sleep", "10")
	if r.code != 124 || !strings.Contains(readFile(t, report), `"timed_out": true`) {
		t.Errorf("timeout report: %v\n%s", r, readFile(t, report))
	}
	r = run(t, ws, "--report", report, "--ro", "/nope", "--", "/bin/true")
	if got := readFile(t, report); r.code != 125 || !strings.Contains(got, `"error"`) || !strings.Contains(got, `"code": 125`) {
		t.Errorf("setup failure report: %v\n%s", r, got)
	}
}
