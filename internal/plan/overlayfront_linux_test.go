package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
)

// overlayPlan is a read-only root with overlays at /t, /o and /r, each of
// the host directory top, and a read-only bind at /b.
func overlayPlan(top string) *mounts.Plan {
	return &mounts.Plan{Root: mounts.Op{Kind: mounts.OpBind, Path: "/", Source: "/", Dir: true, ReadOnly: true}, Ops: []mounts.Op{
		{Kind: mounts.OpTmpfs, Path: "/tmp", Dir: true, Mode: 0o755, Mountpoints: []mounts.Mountpoint{{Rel: "t", Dir: true}}},
		{Kind: mounts.OpOverlay, Path: "/tmp/t", Source: top, Dir: true},
		{Kind: mounts.OpOverlay, Path: "/o", Source: top, Dir: true},
		{Kind: mounts.OpOverlay, Path: "/r", Source: top, Dir: true},
		{Kind: mounts.OpBind, Path: "/b", Source: top, Dir: true, ReadOnly: true},
	}}
}

func writeRights(rules []landlock.PathRule, p string) landlock.FS {
	return landlock.Allowed(rules, p) & (landlock.WriteFile | landlock.MakeReg | landlock.RemoveFile)
}

// TestApplyOverlays: bubblewrap's overlays complete the plan's (lower
// layers highest first, a host upper and work directory, or none), and
// the Landlock rules are derived again: write where an overlay is
// writable, read and execute only on a read-only one.
func TestApplyOverlays(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	top, l1, l2, up, wk := mk("top"), mk("l1"), mk("l2"), mk("up"), mk("wk")
	spec := &launch.Spec{Plan: overlayPlan(top)}
	l, err := PlanLayers(&LayerRequest{}, FullGrants(spec.Plan), LayerOptions{Limit: NetAsPolicy}, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	if l.Landlock == nil {
		t.Skip("no Landlock on this kernel")
	}
	spec.Landlock = l.Landlock
	if writeRights(spec.Landlock.Paths, "/r/f") == 0 {
		t.Fatal("before: the plan's writable overlay at /r has no write rights")
	}
	err = ApplyFront(spec, &front.Settings{Overlays: []front.Overlay{
		{Path: "/tmp/t", Lower: []string{l2, l1}},
		{Path: "/o", Upper: up, Work: wk},
		{Path: "/r", Lower: []string{l1}, ReadOnly: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ops := spec.Plan.Ops
	id := func(p string) mounts.Identity {
		i, err := DirIdentity(p)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	if want := []mounts.Layer{{Path: l2, ID: id(l2)}, {Path: l1, ID: id(l1)}}; !reflect.DeepEqual(ops[1].Lower, want) || ops[1].ReadOnly || ops[1].UpperDir.Path != "" {
		t.Errorf("tmp overlay: %+v", ops[1])
	}
	if ops[2].UpperDir != (mounts.Layer{Path: up, ID: id(up)}) || ops[2].WorkDir != (mounts.Layer{Path: wk, ID: id(wk)}) || ops[2].ReadOnly {
		t.Errorf("overlay: %+v", ops[2])
	}
	if !ops[3].ReadOnly || len(ops[3].Lower) != 1 {
		t.Errorf("read-only overlay: %+v", ops[3])
	}
	for _, c := range []struct {
		path     string
		writable bool
	}{{"/tmp/t/f", true}, {"/o/f", true}, {"/r/f", false}, {"/b/f", false}, {"/etc/f", false}} {
		if got := writeRights(spec.Landlock.Paths, c.path) != 0; got != c.writable {
			t.Errorf("Landlock write at %s: %v, want %v", c.path, got, c.writable)
		}
	}
}

func TestApplyOverlaysRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"top", "l1", "up", "wk"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("up", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	at := func(n string) string { return filepath.Join(dir, n) }
	for _, c := range []struct {
		o    front.Overlay
		want string
	}{
		{front.Overlay{Path: "/nope", Lower: []string{at("l1")}}, "the sandbox mounts no private overlay there"},
		{front.Overlay{Path: "/b", Lower: []string{at("l1")}}, "the sandbox mounts no private overlay there"},
		{front.Overlay{Path: "/o", Lower: []string{at("missing")}}, "no such file"},
		{front.Overlay{Path: "/o", Upper: at("link"), Work: at("wk")}, "link: is a special file, not a directory"},
		{front.Overlay{Path: "/o", Upper: at("up"), Work: at("link")}, "link: is a special file, not a directory"},
		{front.Overlay{Path: "/r", ReadOnly: true}, "a read-only overlay needs two lower directories"},
		{front.Overlay{Path: "/tmp", Lower: []string{at("l1")}}, "the sandbox mounts no private overlay there"},
	} {
		spec := &launch.Spec{Plan: overlayPlan(at("top"))}
		err := ApplyFront(spec, &front.Settings{Overlays: []front.Overlay{c.o}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	// Mount points inside a read-only overlay cannot be made.
	spec := &launch.Spec{Plan: overlayPlan(at("top"))}
	spec.Plan.Ops[3].Mountpoints = []mounts.Mountpoint{{Rel: "m", Dir: true}}
	err := ApplyFront(spec, &front.Settings{Overlays: []front.Overlay{{Path: "/r", Lower: []string{at("l1")}, ReadOnly: true}}})
	if err == nil || !strings.Contains(err.Error(), "nothing can be mounted inside a read-only overlay") {
		t.Errorf("read-only overlay with a mount point: %v", err)
	}
}
