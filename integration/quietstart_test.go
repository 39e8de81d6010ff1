//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// rehashRC is what pyenv's rehash does when a shell starts, written for
// these tests: take the lock file in the shims directory (pyenv tries a
// write rather than trust access(2), which Landlock does not answer),
// write the shims, release the lock; where it cannot write, say so as
// pyenv does.
const rehashRC = `export PYENV_ROOT="$HOME/.pyenv"
shims="$PYENV_ROOT/shims"
if ( set -o noclobber; : >"$shims/.pyenv-shim" ) 2>/dev/null; then
	printf '#!/bin/sh\n' >"$shims/pip"
	rm -f "$shims/.pyenv-shim"
else
	echo "pyenv: cannot rehash: $shims isn't writable" >&2
fi
`

// quietHome is a HOME outside /tmp (the sandbox shows it, read-only)
// with a version manager's shims directory holding one shim, and rc as
// its .bashrc.
func quietHome(t *testing.T, rc string) string {
	t.Helper()
	home, err := os.MkdirTemp("/var/tmp", "nsrun-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".pyenv/shims/python"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(home, ".bashrc"), rc)
	return home
}

// homeState is treeSum with every directory's modification time: a file
// made and removed again changes its directory's.
func homeState(t *testing.T, home string) string {
	t.Helper()
	var times []string
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		times = append(times, fmt.Sprintf("%s %d", p, fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return treeSum(t, home) + "\n" + strings.Join(times, "\n")
}

// shellStart runs an interactive bash on a pty of the sandbox's own (so
// that job control says nothing) with HOME home, and returns what it
// printed, one line per line. The caller's version managers' variables
// are left out: the start-up file sets its own.
func shellStart(t *testing.T, home string, opts ...string) result {
	t.Helper()
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PYENV_ROOT" && k != "RBENV_ROOT" && k != "NODENV_ROOT" && k != "HOME" {
			base = append(base, kv)
		}
	}
	args := append(append([]string{"--tty", "always"}, opts...), "--", "bash", "-i", "-c", `echo started; ls -A1 "$PYENV_ROOT/shims"`)
	r := runBase(t, "/", base, []string{"HOME=" + home}, args...)
	r.stdout = strings.ReplaceAll(r.stdout, "\r\n", "\n")
	return r
}

// TestQuietShellStart: under a plain nsrun, whose HOME is the caller's
// and read-only, a shell whose start-up regenerates a version manager's
// shims prints nothing but its own output: the shims directory is
// writable in a layer of the sandbox's own, discarded with it, and the
// host's HOME is left exactly as it was. A rule that names the directory
// still decides it.
func TestQuietShellStart(t *testing.T) {
	home := quietHome(t, rehashRC)
	shims := filepath.Join(home, ".pyenv/shims")
	before := homeState(t, home)
	if fsType := shimsFileSystem(t, shims); fsType != 0 {
		// An overlay root (a container's), FUSE, NFS: nsrun gives no
		// layer there, says why with -v, and the host stays unchanged.
		r := shellStart(t, home, "-v")
		if want := shims + ": no writable layer of the sandbox's own (it lies on a file system"; !strings.Contains(r.stderr, want) {
			t.Errorf("-v does not say %q:\n%s", want, r.stderr)
		}
		expect(t, "the host's HOME", homeState(t, home), before)
		t.Skipf("%s lies on a file system of type %#x, which nsrun does not overlay: the quiet start is not given here, as documented", shims, fsType)
	}

	report := filepath.Join(workspace(t), "report.json")
	r := shellStart(t, home, "--report", report)
	expect(t, "stdout (the shell's own output, with the shim its start wrote)", r.stdout, "started\npip\npython")
	var doc struct {
		Filesystem struct {
			Overlay []string `json:"overlay"`
		} `json:"filesystem"`
	}
	if err := json.Unmarshal([]byte(readFile(t, report)), &doc); err != nil || !slices.Contains(doc.Filesystem.Overlay, shims) {
		t.Errorf("the report does not list %s as an overlay (%v): %+v", shims, err, doc)
	}
	expect(t, "nsrun's stderr", r.stderr, "")
	expect(t, "the host's HOME", homeState(t, home), before)

	// As bwrap, nsrun shows what the command line composes, no more.
	r = runBase(t, "/", nil, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--",
		"/bin/sh", "-c", `touch "$HOME/.pyenv/shims/x" 2>/dev/null; echo $?`)
	expect(t, "as bwrap, a write into the shims (1: refused)", r.stdout, "1")
	// --ro on the directory keeps it read-only, as asked.
	r = shellStart(t, home, "--ro", shims)
	expect(t, "with --ro on the shims", r.stdout, "pyenv: cannot rehash: "+shims+" isn't writable\nstarted\npython")
	// --rw lets the rehash write on the host, as asked.
	r = shellStart(t, home, "--rw", shims)
	expect(t, "with --rw on the shims", r.stdout, "started\npip\npython")
	if _, err := os.Stat(filepath.Join(shims, "pip")); err != nil {
		t.Errorf("--rw: the rehash's shim is not on the host: %v", err)
	}
}

// TestQuietShellStartLandlockOnly: without mounts there is no layer to
// give; the shims directory stays read-only (pyenv says so), -v says why,
// and the host's HOME is left as it was.
func TestQuietShellStartLandlockOnly(t *testing.T) {
	home := quietHome(t, rehashRC)
	shims := filepath.Join(home, ".pyenv/shims")
	before := homeState(t, home)
	r := shellStart(t, home, "--isolation", "landlock", "-v")
	expect(t, "stdout", r.stdout, "pyenv: cannot rehash: "+shims+" isn't writable\nstarted\npython")
	want := "nsrun: " + shims + " stays read-only: --isolation landlock has no mounts to give it a writable layer of its own (pyenv says it cannot rehash when a shell starts)"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	expect(t, "the host's HOME", homeState(t, home), before)
}

// TestQuietShellStartPyenv is TestQuietShellStart with pyenv itself where
// the host has it (its scripts copied into the test's HOME, no Python
// version), started both ways its documentation gives.
func TestQuietShellStartPyenv(t *testing.T) {
	need(t)
	bin, err := exec.LookPath("pyenv")
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		t.Skip("no pyenv on this host")
	}
	root := filepath.Dir(filepath.Dir(bin)) // ROOT/libexec/pyenv
	home := quietHome(t, `export PYENV_ROOT="$HOME/.pyenv"
export PATH="$PYENV_ROOT/bin:$PATH"
eval "$(pyenv init --path)"
eval "$(pyenv init -)"
`)
	for _, d := range []string{"bin", "libexec", "completions", "pyenv.d"} {
		if _, err := os.Stat(filepath.Join(root, d)); err != nil {
			continue
		}
		if out, err := exec.Command("cp", "-a", filepath.Join(root, d), filepath.Join(home, ".pyenv")).CombinedOutput(); err != nil {
			t.Fatalf("copy pyenv's %s: %v %s", d, err, out)
		}
	}
	// Rehashed once on the host, as a shell there would have.
	cmd := exec.Command("bash", "-c", `. "$HOME/.bashrc"`)
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pyenv on the host: %v %s", err, out)
	}
	before := homeState(t, home)
	want := []string{"started"}
	entries, err := os.ReadDir(filepath.Join(home, ".pyenv/shims"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want = append(want, e.Name())
	}
	r := shellStart(t, home)
	expect(t, "stdout", r.stdout, strings.Join(want, "\n"))
	expect(t, "stderr", r.stderr, "")
	expect(t, "the host's HOME", homeState(t, home), before)
}

// hostShims is the version managers' shims directories of this process's
// environment, as nsrun finds them: a plain sandbox shows each writable,
// in a layer of its own.
func hostShims() map[string]bool {
	out := map[string]bool{}
	home := os.Getenv("HOME")
	for _, t := range []struct{ v, dir string }{{"PYENV_ROOT", ".pyenv"}, {"RBENV_ROOT", ".rbenv"}, {"NODENV_ROOT", ".nodenv"}} {
		for _, root := range []string{os.Getenv(t.v), filepath.Join(home, t.dir)} {
			if !filepath.IsAbs(root) {
				continue
			}
			if dir, err := filepath.EvalSymlinks(filepath.Join(root, "shims")); err == nil {
				if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
					out[dir] = true
				}
			}
		}
	}
	return out
}

// shimsFileSystem is the type of dir's file system where nsrun gives a
// shims directory no layer there (not ext4, xfs, btrfs or tmpfs), else 0.
func shimsFileSystem(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	switch int64(st.Type) {
	case 0xef53, 0x58465342, 0x9123683e, 0x01021994: // ext4, xfs, btrfs, tmpfs
		return 0
	}
	return int64(st.Type)
}
