//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Second red-team pass of 2026-12-02 (after redteam_1202_test.go): a
// payload against git by other ways, the shims layer, bubblewrap mode and
// sessions. A test that passes is a promise that held; one that fails is
// a hole, described where it fails.

// exchanger exchanges the names argv[1] and argv[2] (renameat2
// RENAME_EXCHANGE) in a loop, as fast as it can, after printing ready.
const exchanger = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
print("ready", flush=True)
while True:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        print("renameat2:", os.strerror(ctypes.get_errno()), flush=True)
        sys.exit(1)
`

// dirSwapper waits for the directory argv[1] to appear and exchanges it
// at once with a symlink to argv[2]; then it moves both aside and waits
// again.
const dirSwapper = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d, victim = sys.argv[1], sys.argv[2]
s = d + ".link"
os.symlink(victim, s)
print("ready", flush=True)
n = 0
while True:
    if libc.renameat2(-100, d.encode(), -100, s.encode(), 2) != 0:
        continue
    time.sleep(0.02)
    os.unlink(d)
    os.rename(s, d + ".gone" + str(n)); n += 1
    os.symlink(victim, s)
`

// A sandbox shares a host tree, writable, with a bubblewrap-mode command
// started meanwhile that makes or changes something in it on the host
// (--chmod, --perms --dir: nsrun does these on the host before the
// sandbox starts, as bubblewrap does through the bind). The payload of the
// first swaps, in a loop, the name the second acts on for a symlink to a
// host file outside every writable path (here a 0600 file in another
// directory), to set the mode of a file of the user's it may not write
// (0666 on ~/.bashrc, 0777 on ~/.ssh). nsrun acts through descriptors
// (cmd/nsrun/bwrapmaker_linux.go): the parent reached from the bind's
// host directory with no symlink followed, the mode set on the file's own
// descriptor. Before, it checked each component with lstat and then acted
// by path (fchmodat following a symlink swapped in between, mkdir then
// chmod by name), and this test failed within a few dozen runs.
func TestRedteamBwrapHostChangeRace(t *testing.T) {
	py := needPython(t)
	cases := []struct {
		name   string
		script string
		args   func(ws string) []string // after --bind ws ws
		swap   func(ws, victim string) []string
	}{
		{"chmod", exchanger,
			func(ws string) []string { return []string{"--chmod", "0666", filepath.Join(ws, "x")} },
			func(ws, victim string) []string { return []string{filepath.Join(ws, "x"), filepath.Join(ws, "y")} }},
		{"perms dir", dirSwapper,
			func(ws string) []string { return []string{"--perms", "0777", "--dir", filepath.Join(ws, "new")} },
			func(ws, victim string) []string { return []string{filepath.Join(ws, "new"), victim} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, other := workspace(t), workspace(t)
			victim := filepath.Join(other, "secret")
			writeFile(t, victim, "secret\n")
			if err := os.Chmod(victim, 0o600); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(ws, "x"), "x\n")
			if err := os.Symlink(victim, filepath.Join(ws, "y")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(ws, "swap.py"), tc.script)
			argv := append([]string{"--rw", ws, "--", py, filepath.Join(ws, "swap.py")}, tc.swap(ws, victim)...)
			p := startReady(t, argv...)
			t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })

			deadline := time.Now().Add(90 * time.Second)
			for i := 1; i <= 150 && time.Now().Before(deadline); i++ {
				args := append(append([]string{"bwrap", "--ro-bind", "/", "/", "--bind", ws, ws}, tc.args(ws)...), "--", "/bin/true")
				r := run(t, "/", args...)
				fi, err := os.Stat(victim)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Fatalf("after %d runs of nsrun %v while the sandbox's payload swapped in a symlink: %s is %#o (was 0600); last run: %v",
						i, args, victim, fi.Mode().Perm(), r)
				}
			}
		})
	}
}
