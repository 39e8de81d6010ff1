//go:build linux

package integration

import "testing"

// TestSwitchValuesRefused: the environment's switches take the values
// they name; a misspelt one is refused in one line before anything is
// made, not taken for off (NSRUN_INIT's own test is TestInitChosen).
func TestSwitchValuesRefused(t *testing.T) {
	need(t)
	ws := workspace(t)
	base := noShims(workspace(t))
	for _, name := range []string{"NSRUN_FORK_HELPER", "NSRUN_RAW_FORK", "NSRUN_FORCE_REMOUNT", "NSRUN_SHARE_MEMORY"} {
		for _, args := range [][]string{{"--rw", ws}, {"--isolation", "landlock", "--rw", ws}} {
			for _, value := range []string{"yes", "on", " 1", "2"} {
				r := runBase(t, ws, base, []string{name + "=" + value}, append(args, "--", "/bin/sh", "-c", "echo ran")...)
				want := "nsrun: " + name + "=" + value + ": not 0 or 1"
				if r.code != 125 || r.stdout != "" || r.stderr != want {
					t.Errorf("%v %s=%q: want exit 125, nothing run, and %q:\n%v", args, name, value, want, r)
				}
			}
		}
	}
	// bubblewrap's command line fails as bubblewrap fails: exit 1.
	for _, c := range []struct{ name, no, yes string }{
		{"NSRUN_BWRAP_SECCOMP", "on", "off"}, {"NSRUN_BWRAP_LANDLOCK", "on", "off"}, {"NSRUN_BWRAP_VERBOSE", "0", "1"},
	} {
		for _, value := range []string{"Off", "no", "2"} {
			r := runBase(t, ws, base, []string{c.name + "=" + value}, "bwrap", "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/sh", "-c", "echo ran")
			want := "bwrap: " + c.name + "=" + value + ": not " + c.no + " or " + c.yes
			if r.code != 1 || r.stdout != "" || r.stderr != want {
				t.Errorf("bwrap %s=%q: want exit 1, nothing run, and %q:\n%v", c.name, value, want, r)
			}
		}
		for _, value := range []string{"", c.no, c.yes} {
			r := runBase(t, ws, base, []string{c.name + "=" + value}, "bwrap", "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/sh", "-c", "echo ran")
			if r.code != 0 || r.stdout != "ran" {
				t.Errorf("bwrap %s=%q: want it to run:\n%v", c.name, value, r)
			}
		}
	}
}
