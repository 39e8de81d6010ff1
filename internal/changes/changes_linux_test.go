package changes

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func write(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// layer makes a host directory and a kept directory for it whose upper
// layer holds what overlayfs would leave for the payload's changes.
func layer(t *testing.T) (host, kept, upper string) {
	t.Helper()
	host, kept = filepath.Join(t.TempDir(), "host"), filepath.Join(t.TempDir(), "kept")
	write(t, filepath.Join(host, "mod"), "old\n", 0o644)
	write(t, filepath.Join(host, "same"), "same\n", 0o644)
	write(t, filepath.Join(host, "del"), "del\n", 0o644)
	write(t, filepath.Join(host, "dir", "old"), "o\n", 0o644)
	write(t, filepath.Join(host, "dir", "keep"), "k\n", 0o644)
	time.Sleep(2 * Margin)
	dirs, lock, err := Keep(kept, []Layer{{Path: "/inside", Host: host}}, []uint32{0o755})
	if err != nil {
		t.Fatal(err)
	}
	lock.Close()
	upper = filepath.Join(dirs[0], "upper")
	copied := func(p, content string, mode os.FileMode) {
		write(t, filepath.Join(upper, p), content, mode)
		if err := unix.Lsetxattr(filepath.Join(upper, p), "user.overlay.origin", nil, 0); err != nil {
			t.Skip("no user xattrs here:", err)
		}
	}
	copied("mod", "new\n", 0o4755)  // modified, and set-uid in the layer
	copied("same", "same\n", 0o644) // copied up, unchanged
	write(t, filepath.Join(upper, "add"), "add\n", 0o600)
	if err := unix.Mknod(filepath.Join(upper, "del"), unix.S_IFCHR, 0); err != nil {
		t.Skip("no whiteouts here:", err)
	}
	write(t, filepath.Join(upper, "dir", "keep"), "k2\n", 0o644)
	if err := unix.Lsetxattr(filepath.Join(upper, "dir"), "user.overlay.opaque", []byte("y"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/shadow", filepath.Join(upper, "link")); err != nil {
		t.Fatal(err)
	}
	return host, kept, upper
}

func list(cs []Change) []string {
	var out []string
	for _, c := range cs {
		s := c.Kind.String() + " " + strings.TrimPrefix(c.Path, "/inside/")
		if c.Conflict != "" {
			s += " ! " + c.Conflict
		}
		if c.Refused != "" {
			s += " ? " + c.Refused
		}
		out = append(out, s)
	}
	return out
}

func TestScanAndApply(t *testing.T) {
	host, kept, upper := layer(t)
	if err := unix.Mkfifo(filepath.Join(upper, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cs, err := Scan(kept)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A add", "D del", "D dir/old", "M dir/keep", "A link", "M mod", "A pipe ? a named pipe: only files, directories and symlinks are applied"}
	if !reflect.DeepEqual(list(cs), want) {
		t.Errorf("scan\n%q\nwant\n%q", list(cs), want)
	}
	var ce *ConflictError
	if _, err := Apply(kept); !errors.As(err, &ce) || !strings.Contains(err.Error(), "nothing applied") {
		t.Fatalf("apply with a named pipe: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(host, "mod")); string(b) != "old\n" {
		t.Fatal("a refused apply wrote")
	}
	os.Remove(filepath.Join(upper, "pipe"))
	applied, err := Apply(kept)
	if err != nil || len(applied) != 6 {
		t.Fatalf("apply: %d %v", len(applied), err)
	}
	for p, content := range map[string]string{"mod": "new\n", "same": "same\n", "add": "add\n", "dir/keep": "k2\n"} {
		if b, err := os.ReadFile(filepath.Join(host, p)); err != nil || string(b) != content {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
	for _, p := range []string{"del", "dir/old"} {
		if _, err := os.Lstat(filepath.Join(host, p)); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if fi, _ := os.Lstat(filepath.Join(host, "mod")); fi.Mode()&os.ModeSetuid != 0 || fi.Mode().Perm() != 0o755 {
		t.Errorf("mod's mode: %v", fi.Mode())
	}
	if fi, _ := os.Lstat(filepath.Join(host, "add")); fi.Mode().Perm() != 0o600 {
		t.Errorf("add's mode: %v", fi.Mode())
	}
	if target, err := os.Readlink(filepath.Join(host, "link")); err != nil || target != "/etc/shadow" {
		t.Errorf("link: %q %v", target, err)
	}
	if _, err := Apply(kept); !errors.Is(err, ErrApplied) {
		t.Errorf("applied twice: %v", err)
	}
}

// What the host changed since the run began is a conflict, and nothing
// is applied; a symlink planted on the way is never followed.
func TestApplyConflicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(host string)
		want   string
	}{
		{"modified", func(h string) { write(t, filepath.Join(h, "mod"), "host\n", 0o644) }, "M mod ! changed on the host since the run began"},
		{"made", func(h string) { write(t, filepath.Join(h, "add"), "host\n", 0o644) }, "M add ! changed on the host since the run began"},
		{"deleted", func(h string) { os.Remove(filepath.Join(h, "mod")) }, "M mod ! deleted on the host since the run began"},
		{"a directory turned symlink", func(h string) {
			os.RemoveAll(filepath.Join(h, "dir"))
			os.Symlink(t.TempDir(), filepath.Join(h, "dir"))
		}, "a symlink is in the way on the host now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, kept, _ := layer(t)
			tc.change(host)
			_, cs, err := Scan(kept)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(list(cs), "\n"), tc.want) {
				t.Errorf("scan %q lacks %q", list(cs), tc.want)
			}
			before, _ := os.ReadFile(filepath.Join(host, "same"))
			if _, err := Apply(kept); err == nil || !strings.Contains(err.Error(), "nothing applied") {
				t.Errorf("apply: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(host, "link")); !os.IsNotExist(err) {
				t.Errorf("apply wrote part of the changes: %v", err)
			}
			if after, _ := os.ReadFile(filepath.Join(host, "same")); string(after) != string(before) {
				t.Error("apply changed the host")
			}
		})
	}
}

// Keep refuses a directory it cannot trust, and one in use.
func TestKeep(t *testing.T) {
	layers := []Layer{{Path: "/w", Host: "/w"}}
	dir := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Keep(filepath.Join(dir, "link"), layers, []uint32{0o755}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlink: %v", err)
	}
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if _, _, err := Keep(open, layers, []uint32{0o755}); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("writable by others: %v", err)
	}
	k := filepath.Join(dir, "k")
	_, lock, err := Keep(k, layers, []uint32{0o755})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Keep(k, layers, []uint32{0o755}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("in use: %v", err)
	}
	lock.Close()
	if _, lock, err = Keep(k, layers, []uint32{0o755}); err != nil {
		t.Errorf("taken up again: %v", err)
	} else {
		lock.Close()
	}
	if _, _, err := Keep(k, []Layer{{Path: "/v", Host: "/v"}}, []uint32{0o755}); err == nil || !strings.Contains(err.Error(), "other overlays") {
		t.Errorf("other overlays: %v", err)
	}
	if _, _, err := Scan(dir); !errors.Is(err, ErrNoManifest) {
		t.Errorf("no manifest: %v", err)
	}
}
