package plan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/mounts"
)

// frontPlan is a plan with /dev, a writable tmpfs at /tmp holding a bind at
// /tmp/b and a link, and a read-only tmpfs at /ro.
func frontPlan() *mounts.Plan {
	return &mounts.Plan{Ops: []mounts.Op{
		{Kind: mounts.OpDev, Path: "/dev", Dir: true},
		{Kind: mounts.OpTmpfs, Path: "/tmp", Dir: true, Mode: 0o755, Mountpoints: []mounts.Mountpoint{{Rel: "b", Dir: true}, {Rel: "l", Link: "b"}}},
		{Kind: mounts.OpBind, Path: "/tmp/b", Source: "/srv", Dir: true},
		{Kind: mounts.OpTmpfs, Path: "/ro", Dir: true, ReadOnly: true, Mode: 0o555},
	}}
}

func TestApplyFront(t *testing.T) {
	caps := &front.Caps{Keep: 5, Bounding: 7, Ambient: true}
	spec := &launch.Spec{Plan: frontPlan(), Env: []string{"A=1", "NSRUN_SANDBOX=full", "B=2"}}
	err := ApplyFront(spec, &front.Settings{Argv0: "x", NoSandboxEnv: true, DevCore: true, AsPid1: true, Caps: caps,
		Tmpfs: []front.Tmpfs{{Path: "/tmp", Mode: 0o1777, Size: 4096, ReadOnly: true}},
		Files: []front.File{{Path: "/tmp/d/f", Content: "c", Mode: 0o640}, {Path: "/tmp/r", Content: "r", Mode: 0o600, ReadOnly: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Argv0 != "x" || !spec.AsPid1 || !reflect.DeepEqual(spec.Caps, &launch.Caps{Keep: 5, Bounding: 7, Ambient: true}) {
		t.Errorf("spec: argv0 %q, as pid 1 %v, caps %+v", spec.Argv0, spec.AsPid1, spec.Caps)
	}
	if !reflect.DeepEqual(spec.Env, []string{"A=1", "B=2"}) {
		t.Errorf("env %q", spec.Env)
	}
	ops := spec.Plan.Ops
	if got := ops[0].Mountpoints; !reflect.DeepEqual(got, []mounts.Mountpoint{{Rel: "core", Link: "/proc/kcore"}}) {
		t.Errorf("/dev: %+v", got)
	}
	tmp := ops[1]
	if tmp.Mode != 0o1777 || tmp.Size != 4096 || !tmp.ReadOnly {
		t.Errorf("/tmp: mode %#o size %d read-only %v", tmp.Mode, tmp.Size, tmp.ReadOnly)
	}
	// The files before the link, which could redirect them.
	want := []mounts.Mountpoint{{Rel: "b", Dir: true}, {Rel: "d/f", Data: true, Content: "c", Mode: 0o640}, {Rel: "r"}, {Rel: "l", Link: "b"}}
	if !reflect.DeepEqual(tmp.Mountpoints, want) {
		t.Errorf("/tmp mount points\n got %+v\nwant %+v", tmp.Mountpoints, want)
	}
	last := ops[len(ops)-1]
	if last.Kind != mounts.OpFile || last.Path != "/tmp/r" || last.Content != "r" || last.FileMode != 0o600 || !last.ReadOnly {
		t.Errorf("read-only file: %+v", last)
	}
}

func TestApplyFrontRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    front.Settings
		want string
	}{
		{"file in a bind", front.Settings{Files: []front.File{{Path: "/tmp/b/f"}}}, "only in a writable tmpfs"},
		{"file in a read-only tmpfs", front.Settings{Files: []front.File{{Path: "/ro/f"}}}, "only in a writable tmpfs"},
		{"file under no tmpfs", front.Settings{Files: []front.File{{Path: "/etc/f"}}}, "only in a writable tmpfs"},
		{"file on a mount", front.Settings{Files: []front.File{{Path: "/tmp/b"}}}, "mounts something there already"},
		{"file too large", front.Settings{Files: []front.File{{Path: "/tmp/f", Content: strings.Repeat("x", maxDataFile+1)}}}, "over 16 MiB"},
		{"mode of no tmpfs", front.Settings{Tmpfs: []front.Tmpfs{{Path: "/etc", Mode: 0o700}}}, "no writable tmpfs there"},
		{"mode of a read-only tmpfs", front.Settings{Tmpfs: []front.Tmpfs{{Path: "/ro", Mode: 0o700}}}, "no writable tmpfs there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ApplyFront(&launch.Spec{Plan: frontPlan()}, &tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	// A Landlock-only spec has no plan: every setting is refused, none
	// dropped; no settings is no change.
	if err := ApplyFront(&launch.Spec{}, &front.Settings{Argv0: "x"}); err == nil {
		t.Error("a Landlock-only spec took --argv0")
	}
	if err := ApplyFront(&launch.Spec{}, &front.Settings{Started: func(int) {}}); err != nil {
		t.Error(err)
	}
	if err := ApplyFront(&launch.Spec{}, nil); err != nil {
		t.Error(err)
	}
}
