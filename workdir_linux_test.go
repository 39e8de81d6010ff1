package nsrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/plan"
)

func TestFixTmpdir(t *testing.T) {
	rs := rules(cr("/tmp", Tmpfs), cr("/w", ReadWrite), cr("/ro", ReadOnly))
	for _, tc := range []struct{ in, want string }{
		{"TMPDIR=/tmp/x", "TMPDIR=/tmp/x"},
		{"TMPDIR=/w/tmp", "TMPDIR=/w/tmp"},
		{"TMPDIR=/ro/tmp", "TMPDIR=/tmp"},
		{"TMPDIR=/var/tmp", "TMPDIR=/tmp"},
		{"TMPDIR=relative", "TMPDIR=/tmp"},
		{"OTHER=/var/tmp", "OTHER=/var/tmp"},
	} {
		got := (&Cmd{}).fixTmpdir([]string{tc.in}, lowerRules(rs))
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("fixTmpdir(%s) = %v, want %s", tc.in, got, tc.want)
		}
	}
}

func TestWorkDir(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	f := filepath.Join(ws, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rs := rules(cr("/tmp", Tmpfs), cr(ws, ReadWrite))
	for _, tc := range []struct {
		dir, cwd, want, err string
	}{
		{"", ws, ws, ""},
		{"", "/usr", "/usr", ""},
		{"sub/..", ws, ws, ""},
		{"/tmp", "/", "/tmp", ""},
		{f, "/", "", "not a directory"},
		{"/no/such", "/", "", "no such directory"},
		{"/tmp/made-up", "/", "", "starts empty"},
	} {
		c := &Cmd{Dir: tc.dir}
		got, err := c.workDir("/", lowerRules(rs), tc.cwd)
		if tc.err != "" {
			var de *DirError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("workDir(%q): got %v, want a DirError with %q", tc.dir, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("workDir(%q) from %s = %q, %v; want %q", tc.dir, tc.cwd, got, err, tc.want)
		}
	}
	// A cwd hidden by the private /tmp falls back to the first writable dir.
	got, err := (&Cmd{}).workDir("/", lowerRules(rules(cr("/tmp", Tmpfs), cr("/w", ReadWrite))), "/tmp")
	if err != nil || got != "/w" {
		t.Errorf("cwd at the tmpfs root: %q %v", got, err)
	}
	// One with a rule below it exists inside, as a mount point's parent,
	// and is kept: --rw a from /tmp/ws runs in /tmp/ws.
	under := filepath.Join(t.TempDir(), "ws")
	os.MkdirAll(filepath.Join(under, "a"), 0o755)
	if under, err = filepath.EvalSymlinks(under); err != nil || !strings.HasPrefix(under, "/tmp/") {
		t.Skipf("the test's temporary directory %s is not under /tmp", under)
	}
	got, err = (&Cmd{}).workDir("/", lowerRules(rules(cr("/tmp", Tmpfs), cr(under+"/a", ReadWrite))), under)
	if err != nil || got != under {
		t.Errorf("cwd above a rule under the tmpfs: %q %v", got, err)
	}
}

// With a rule for "/" (an overlay) over another root, that root decides
// what a working directory finds: not the host.
func TestWorkDirOverAnotherRootsRule(t *testing.T) {
	img := t.TempDir()
	if err := os.Mkdir(filepath.Join(img, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	rs := rules(cr("/", Overlay))
	got, err := (&Cmd{}).workDir(img, lowerRules(rs), "/usr/bin")
	if err != nil || got != "/" {
		t.Errorf("a cwd the image lacks: %q %v", got, err)
	}
	if got, err := (&Cmd{Dir: "/etc"}).workDir(img, lowerRules(rs), "/"); err != nil || got != "/etc" {
		t.Errorf("--chdir /etc: %q %v", got, err)
	}
	if _, err := (&Cmd{Dir: "/usr"}).workDir(img, lowerRules(rs), "/"); err == nil {
		t.Error("--chdir to what the image lacks")
	}
}

// workDir is the payload's working directory (plan.WorkDir).
func (c *Cmd) workDir(root string, rules []plan.Rule, cwd string) (string, error) {
	dir, err := plan.WorkDir(c.Dir, root, rules, cwd, c.logf)
	return dir, raise(err)
}

// fixTmpdir points TMPDIR at /tmp where the payload cannot write it
// (plan.FixTmpdir).
func (c *Cmd) fixTmpdir(env []string, rules []plan.Rule) []string {
	return plan.FixTmpdir(env, rules, c.warnf)
}
