package absent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWatchRemovesWhatAppears(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep"), []byte("k"), 0o644)
	w, err := Watch([]Target{{Dir: dir, Name: "commondir", Why: "w"}, {Dir: dir, Name: "hooks"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := make(chan Found, 8)
	go w.Run(func(f Found) { got <- f })
	// Unwatched names come and go without a word.
	os.WriteFile(filepath.Join(dir, "index.lock"), nil, 0o644)
	os.Rename(filepath.Join(dir, "index.lock"), filepath.Join(dir, "index"))
	// A directory with a symlink out of it: removed, the link's target kept.
	tmp := filepath.Join(dir, "tmp-hooks")
	os.MkdirAll(filepath.Join(tmp, "sub"), 0o755)
	os.WriteFile(filepath.Join(tmp, "sub", "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink(outside, filepath.Join(tmp, "out"))
	if err := os.Rename(tmp, filepath.Join(dir, "hooks")); err != nil {
		t.Fatal(err)
	}
	f := wait(t, got)
	if f.Name != "hooks" || !f.Removed || f.Kind != "directory" {
		t.Errorf("found %+v", f)
	}
	os.WriteFile(filepath.Join(dir, "commondir"), []byte("/elsewhere\n"), 0o644)
	if f := wait(t, got); f.Name != "commondir" || !f.Removed || f.Why != "w" || f.Kind != "file" {
		t.Errorf("found %+v", f)
	}
	for _, n := range []string{"hooks", "commondir"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", n, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "keep")); err != nil || string(b) != "k" {
		t.Errorf("the symlink was followed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index")); err != nil {
		t.Errorf("an unwatched name was touched: %v", err)
	}
	// What is planted after the watch ends is swept afterwards.
	w.Close()
	os.Symlink("/etc", filepath.Join(dir, "hooks"))
	w2, err := Watch([]Target{{Dir: dir, Name: "info"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	os.Mkdir(filepath.Join(dir, "info"), 0o755)
	if fs := w2.Sweep(); len(fs) != 1 || fs[0].Name != "info" || !fs[0].Removed {
		t.Errorf("sweep: %+v", fs)
	}
	if len(w.All()) != 2 {
		t.Errorf("all found: %+v", w.All())
	}
}

func TestWatchRefuses(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config"), nil, 0o644)
	if _, err := Watch([]Target{{Dir: dir, Name: "config"}}); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("a target that exists: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	if _, err := Watch([]Target{{Dir: link, Name: "x"}}); err == nil {
		t.Error("a directory reached through a symlink must not be watched")
	}
}

// A watched directory moved away is a violation: its name is no longer
// the one watched.
func TestWatchedDirectoryMoved(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "d")
	os.Mkdir(dir, 0o755)
	w, err := Watch([]Target{{Dir: dir, Name: "commondir"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := make(chan Found, 8)
	go w.Run(func(f Found) { got <- f })
	os.Rename(dir, filepath.Join(base, "e"))
	if f := wait(t, got); f.Removed || f.Way != dir || f.At != "" {
		t.Errorf("found %+v", f)
	}
}

// wayTest is a target tools/hooks below a root, the root's tools directory
// made, watched from the root.
func wayTest(t *testing.T) (root string, w *Watcher, got chan Found) {
	t.Helper()
	root = t.TempDir()
	os.Mkdir(filepath.Join(root, "tools"), 0o755)
	w, err := Watch([]Target{{Root: root, Dir: filepath.Join(root, "tools"), Name: "hooks"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	got = make(chan Found, 8)
	go w.Run(func(f Found) { got <- f })
	return root, w, got
}

// prepared makes DIR/hooks/pre-commit.
func prepared(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
}

func gone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("%s resolves: %v", p, err)
	}
}

// Each way of changing a directory on the way is seen: the way is walked
// again from the root, what makes the path resolve is removed, and the
// change reported.
func TestWatchWayChanged(t *testing.T) {
	t.Run("exchange", func(t *testing.T) {
		root, _, got := wayTest(t)
		prepared(t, filepath.Join(root, "new"))
		if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "tools"), unix.AT_FDCWD, filepath.Join(root, "new"), unix.RENAME_EXCHANGE); err != nil {
			t.Fatal(err)
		}
		f := wait(t, got)
		if f.Way != filepath.Join(root, "tools") || f.At != filepath.Join(root, "tools", "hooks") || !f.Removed || f.Kind != "directory" {
			t.Errorf("found %+v", f)
		}
		gone(t, filepath.Join(root, "tools", "hooks"))
	})
	t.Run("remove and make again", func(t *testing.T) {
		root, w, got := wayTest(t)
		os.Remove(filepath.Join(root, "tools"))
		if f := wait(t, got); f.Way != filepath.Join(root, "tools") || f.At != "" {
			t.Errorf("found %+v", f)
		}
		// The sweep walks the way again and finds what the new directory
		// holds, unless the watcher, walking it again itself after the
		// removal, met the new directory first and removed it already.
		prepared(t, filepath.Join(root, "tools"))
		hooks := filepath.Join(root, "tools", "hooks")
		fs := w.Sweep()
		if len(fs) == 0 {
			select {
			case f := <-got:
				fs = []Found{f}
			case <-time.After(time.Second):
			}
		}
		if len(fs) != 1 || fs[0].At != hooks || !fs[0].Removed {
			t.Errorf("sweep: %+v", fs)
		}
		gone(t, hooks)
	})
	t.Run("a symlink for the directory", func(t *testing.T) {
		root, _, got := wayTest(t)
		prepared(t, filepath.Join(root, "new"))
		os.Rename(filepath.Join(root, "tools"), filepath.Join(root, "old"))
		os.Symlink("new", filepath.Join(root, "tools"))
		var f Found
		for f.At == "" {
			f = wait(t, got)
		}
		if f.Way != filepath.Join(root, "tools") || f.At != filepath.Join(root, "tools") || f.Kind != "symlink" || !f.Removed {
			t.Errorf("found %+v", f)
		}
		gone(t, filepath.Join(root, "tools", "hooks"))
		if _, err := os.Stat(filepath.Join(root, "new", "hooks", "pre-commit")); err != nil {
			t.Errorf("the symlink was followed: %v", err)
		}
	})
	t.Run("rename over", func(t *testing.T) {
		root, _, got := wayTest(t)
		prepared(t, filepath.Join(root, "new"))
		// os.Rename refuses to replace a directory; the call does not.
		if err := unix.Rename(filepath.Join(root, "new"), filepath.Join(root, "tools")); err != nil {
			t.Fatal(err)
		}
		var f Found
		for f.At == "" {
			f = wait(t, got)
		}
		if f.Way != filepath.Join(root, "tools") || !f.Removed {
			t.Errorf("found %+v", f)
		}
		gone(t, filepath.Join(root, "tools", "hooks"))
	})
	t.Run("unchanged without Run", func(t *testing.T) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
		w, err := Watch([]Target{{Root: root, Dir: filepath.Join(root, "a", "b"), Name: "hooks"}})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if fs := w.Sweep(); len(fs) != 0 {
			t.Errorf("nothing changed: %+v", fs)
		}
		// A grandparent exchanged while nothing watched: the sweep does not
		// trust what it opened before.
		prepared(t, filepath.Join(root, "new", "b"))
		unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "a"), unix.AT_FDCWD, filepath.Join(root, "new"), unix.RENAME_EXCHANGE)
		fs := w.Sweep()
		if len(fs) != 1 || fs[0].Way != filepath.Join(root, "a") || fs[0].At != filepath.Join(root, "a", "b", "hooks") || !fs[0].Removed {
			t.Errorf("sweep: %+v", fs)
		}
		gone(t, filepath.Join(root, "a", "b", "hooks"))
		if fs := w.Sweep(); len(fs) != 0 {
			t.Errorf("a change is told once: %+v", fs)
		}
	})
}

// Names elsewhere in the directories of the way are not the watcher's.
func TestWatchWayOtherNames(t *testing.T) {
	root, w, got := wayTest(t)
	os.Mkdir(filepath.Join(root, "other"), 0o755)
	os.Rename(filepath.Join(root, "other"), filepath.Join(root, "other2"))
	os.Remove(filepath.Join(root, "other2"))
	os.WriteFile(filepath.Join(root, "tools", "x"), nil, 0o644)
	select {
	case f := <-got:
		t.Errorf("reported: %+v", f)
	case <-time.After(100 * time.Millisecond):
	}
	if fs := w.Sweep(); len(fs) != 0 {
		t.Errorf("sweep: %+v", fs)
	}
}

func TestWay(t *testing.T) {
	for _, tc := range []struct {
		root, dir, want string
		err             bool
	}{
		{"/ws", "/ws", "", false},
		{"/ws", "/ws/tools", "tools", false},
		{"/ws", "/ws/a/b", "a b", false},
		{"/", "/ws/a", "ws a", false},
		{"/ws", "/wsx/a", "", true},
		{"/ws/a", "/ws", "", true},
		{"/ws", "/ws/../etc", "", true},
		{"/ws/", "/ws/a", "", true},
		{"ws", "ws/a", "", true},
		{"/ws", "/ws//a", "", true},
	} {
		got, err := Way(tc.root, tc.dir)
		if (err != nil) != tc.err || strings.Join(got, " ") != tc.want {
			t.Errorf("Way(%q, %q) = %q, %v", tc.root, tc.dir, got, err)
		}
	}
}

// A root that is not above the directory is refused.
func TestWatchRefusesRoot(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if _, err := Watch([]Target{{Root: a, Dir: b, Name: "x"}}); err == nil {
		t.Error("a root elsewhere")
	}
}

// An event queue flooded past its size still ends in a check of every
// target.
func TestWatchOverflow(t *testing.T) {
	dir := t.TempDir()
	w, err := Watch([]Target{{Dir: dir, Name: "commondir"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 20000; i++ {
		os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
		os.Rename(filepath.Join(dir, "f"), filepath.Join(dir, "g"))
	}
	os.WriteFile(filepath.Join(dir, "commondir"), nil, 0o644)
	got := make(chan Found, 8)
	go w.Run(func(f Found) { got <- f })
	if f := wait(t, got); f.Name != "commondir" || !f.Removed {
		t.Errorf("found %+v", f)
	}
}

func wait(t *testing.T, c chan Found) Found {
	t.Helper()
	select {
	case f := <-c:
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("nothing found")
	}
	return Found{}
}

// BenchmarkWindow measures how long a planted name exists: from the
// rename that plants it until the watcher has removed it, as a process
// polling for it sees. The planting and polling process is another one
// (this test binary started again), as the sandbox's would be; with
// FLOOD=1 a third keeps creating unwatched files in the same directory.
func BenchmarkWindow(b *testing.B) {
	dir := b.TempDir()
	w, err := Watch([]Target{{Dir: dir, Name: "commondir"}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	go w.Run(func(Found) {})
	if os.Getenv("FLOOD") == "1" {
		flood := exec.Command(os.Args[0], "-test.run=^TestChild$")
		flood.Env = append(os.Environ(), "ABSENT_CHILD=flood", "ABSENT_DIR="+dir)
		if err := flood.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { flood.Process.Kill(); flood.Wait() }()
	}
	plant := exec.Command(os.Args[0], "-test.run=^TestChild$")
	plant.Env = append(os.Environ(), "ABSENT_CHILD=plant", "ABSENT_DIR="+dir, fmt.Sprintf("ABSENT_N=%d", b.N))
	out, err := plant.Output()
	if err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	var median, p99, worst float64
	fmt.Sscanf(string(out), "%g %g %g", &median, &p99, &worst)
	b.ReportMetric(median, "median-µs")
	b.ReportMetric(p99, "p99-µs")
	b.ReportMetric(worst, "worst-µs")
}

// TestChild is the other process of BenchmarkWindow.
func TestChild(t *testing.T) {
	dir := os.Getenv("ABSENT_DIR")
	switch os.Getenv("ABSENT_CHILD") {
	case "flood":
		for {
			os.WriteFile(filepath.Join(dir, "noise"), nil, 0o644)
			os.Remove(filepath.Join(dir, "noise"))
		}
	case "plant":
		n, _ := strconv.Atoi(os.Getenv("ABSENT_N"))
		src, dst := filepath.Join(dir, "planted"), filepath.Join(dir, "commondir")
		ds := make([]float64, 0, n)
		for i := 0; i < n; i++ {
			os.WriteFile(src, []byte("/x\n"), 0o644)
			start := time.Now()
			os.Rename(src, dst)
			for {
				if _, err := os.Lstat(dst); os.IsNotExist(err) {
					break
				}
			}
			ds = append(ds, float64(time.Since(start).Nanoseconds())/1000)
			time.Sleep(100 * time.Microsecond)
		}
		sort.Float64s(ds)
		fmt.Printf("%.0f %.0f %.0f\n", ds[len(ds)/2], ds[len(ds)*99/100], ds[len(ds)-1])
		os.Exit(0)
	}
}

// After Unwatch nothing is reported as it appears, and Sweep still finds
// and removes it.
func TestUnwatch(t *testing.T) {
	dir := t.TempDir()
	w, err := Watch([]Target{{Dir: dir, Name: "hooks"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := make(chan Found, 8)
	go w.Run(func(f Found) { got <- f })
	w.Unwatch()
	os.Mkdir(filepath.Join(dir, "hooks"), 0o755)
	select {
	case f := <-got:
		t.Fatalf("reported after Unwatch: %+v", f)
	case <-time.After(100 * time.Millisecond):
	}
	if fs := w.Sweep(); len(fs) != 1 || !fs[0].Removed {
		t.Errorf("sweep: %+v", fs)
	}
}

// Which targets an event concerns.
func TestTouched(t *testing.T) {
	a, b := &target{Target: Target{Name: "a"}}, &target{Target: Target{Name: "b"}}
	d := &dir{next: map[string][]step{"tools": {{t: a}}, "hooks": {{t: b, last: true}}}, on: []*target{a, b}}
	for _, tc := range []struct {
		mask uint32
		name string
		want int
	}{
		{unix.IN_MOVE_SELF, "", 2},
		{unix.IN_DELETE_SELF, "", 2},
		{unix.IN_UNMOUNT, "", 2},
		{unix.IN_CREATE, "tools", 1},
		{unix.IN_MOVED_FROM, "hooks", 1},
		{unix.IN_CREATE, "HOOKS", 1},
		{unix.IN_CREATE, "tools.new", 0},
	} {
		if got := d.touched(tc.mask, tc.name); len(got) != tc.want {
			t.Errorf("%#x %q: %d targets, want %d", tc.mask, tc.name, len(got), tc.want)
		}
	}
}

// The payload runs as the caller's uid and can take the owner's rights
// away on what it plants (a hooks/ made 0555 with a hook in it, a
// directory in it 0, the watched directory itself 0555): removing it must
// not stop there. (Root is not kept out by modes: the test means
// something when run as another user.)
func TestRemoveWhatItsOwnerCannotChange(t *testing.T) {
	dir := t.TempDir()
	w, err := Watch([]Target{{Dir: dir, Name: "hooks"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tmp := filepath.Join(dir, "h")
	os.MkdirAll(filepath.Join(tmp, "locked", "deeper"), 0o755)
	os.WriteFile(filepath.Join(tmp, "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(tmp, "locked", "deeper", "x"), nil, 0o644)
	os.Chmod(filepath.Join(tmp, "locked", "deeper"), 0o555)
	os.Chmod(filepath.Join(tmp, "locked"), 0)
	os.Chmod(tmp, 0o555)
	if err := os.Rename(tmp, filepath.Join(dir, "hooks")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if fs := w.Sweep(); len(fs) != 1 || !fs[0].Removed || fs[0].Err != nil {
		t.Errorf("sweep: %+v", fs)
	}
	if _, err := os.Lstat(filepath.Join(dir, "hooks")); !os.IsNotExist(err) {
		t.Errorf("hooks is still there: %v", err)
	}
}
