package nsrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPayloadPWDIsItsWorkingDirectory: whatever environment the payload is
// given (none, the caller's PWD, another directory's), its PWD names its
// own working directory, in both isolation modes, and the report does not
// list PWD as removed.
func TestPayloadPWDIsItsWorkingDirectory(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	if c, err := filepath.EvalSymlinks(ws); err == nil {
		ws = c
	}
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + os.Getenv("PATH")
	for iso, isoName := range map[Isolation]string{IsolationFull: "full", IsolationLandlock: "landlock"} {
		for _, c := range []struct {
			name  string
			env   []string
			dir   string
			unset []string
		}{
			{"no PWD given", []string{path}, sub, nil},
			{"the caller's PWD", []string{path, "PWD=/somewhere/else"}, sub, nil},
			{"the caller's PWD, no Dir", []string{path, "PWD=/somewhere/else"}, "", nil},
			{"PWD twice", []string{"PWD=/a", path, "PWD=/b"}, sub, nil},
			{"everything unset", []string{path, "PWD=/somewhere/else"}, sub, []string{"*"}},
		} {
			var out strings.Builder
			cmd := Command(&Policy{Isolation: iso, Rules: []Rule{{Path: ws, Access: ReadWrite}}, UnsetEnv: c.unset}, "/usr/bin/printenv", "PWD")
			cmd.Env, cmd.Dir, cmd.Stdout = c.env, c.dir, &out
			if err := cmd.Run(); err != nil {
				t.Errorf("%s, %s: %v", isoName, c.name, err)
				continue
			}
			want := c.dir
			if want == "" {
				// The caller's directory, or where nsrun chose when that
				// is not visible inside (a checkout under /tmp, which is
				// the sandbox's own): the report says which.
				if want = cmd.Report().Dir; want == "" {
					t.Errorf("%s, %s: the report names no working directory", isoName, c.name)
				}
			}
			if got := strings.TrimSpace(out.String()); got != want {
				t.Errorf("%s, %s: PWD=%q, want %q", isoName, c.name, got, want)
			}
			for _, r := range cmd.Report().Environment.Removed {
				if r == "PWD" {
					t.Errorf("%s, %s: the report lists PWD as removed", isoName, c.name)
				}
			}
		}
	}
}
