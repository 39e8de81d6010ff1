package plan

import (
	"errors"
	"strings"

	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/mounts"
)

// ApplyFront applies a front end's settings (package front) to a planned
// spec; s may be nil. A Landlock-only spec (no mount plan: no init, no
// mounts, no user namespace of its own) takes none of them: it is refused,
// not run without what was asked.
func ApplyFront(spec *launch.Spec, s *front.Settings) error {
	if s == nil || (s.Argv0 == "" && !s.NoSandboxEnv && !s.DevCore && !s.AsPid1 && s.Caps == nil &&
		len(s.Tmpfs) == 0 && len(s.Files) == 0 && len(s.Overlays) == 0) {
		return nil
	}
	if spec.Plan == nil {
		return &Error{Kind: KindSetup, Op: "apply the bubblewrap front end's settings",
			Err: errors.New("the Landlock-only isolation has no init, mounts or user namespace of its own to give them")}
	}
	spec.Argv0, spec.AsPid1 = s.Argv0, s.AsPid1
	if s.NoSandboxEnv {
		spec.Env = withoutVar(spec.Env, "NSRUN_SANDBOX")
	}
	if s.Caps != nil {
		spec.Caps = &launch.Caps{Keep: s.Caps.Keep, Bounding: s.Caps.Bounding, Ambient: s.Caps.Ambient}
	}
	if s.DevCore {
		addDevCore(spec.Plan)
	}
	for _, f := range s.Files {
		if err := addDataFile(spec.Plan, f); err != nil {
			return err
		}
	}
	for _, t := range s.Tmpfs {
		if err := setTmpfs(spec.Plan, t); err != nil {
			return err
		}
	}
	return applyOverlays(spec, s.Overlays)
}

// setTmpfs gives the writable tmpfs the plan mounts at t.Path t's mode,
// size and read-only flag. It runs after the files are added, which
// need the tmpfs writable in the plan.
func setTmpfs(p *mounts.Plan, t front.Tmpfs) error {
	for i := range p.Ops {
		op := &p.Ops[i]
		if op.Kind == mounts.OpTmpfs && op.Path == t.Path && !op.ReadOnly {
			op.Mode = t.Mode
			if t.Size > 0 {
				op.Size = t.Size
			}
			// Read-only once its mount points and files are made; the
			// Landlock grants that let the payload write there meet a
			// read-only mount.
			op.ReadOnly = t.ReadOnly
			return nil
		}
	}
	return &Error{Kind: KindSetup, Op: "set the mode of the tmpfs at " + t.Path,
		Err: errors.New("the sandbox mounts no writable tmpfs there")}
}

// maxDataFile bounds a file's content: it travels in the spec.
const maxDataFile = 16 << 20

// addDataFile makes f in the writable tmpfs of the plan that holds its
// path: a file of the tmpfs, or for a read-only one a read-only file
// mounted over a mount point made there.
func addDataFile(p *mounts.Plan, f front.File) error {
	fail := func(why string) error {
		return &Error{Kind: KindSetup, Op: "make the file " + f.Path, Err: errors.New(why)}
	}
	if len(f.Content) > maxDataFile {
		return fail("its content is over 16 MiB")
	}
	holder := -1
	for i, op := range p.Ops {
		if op.Path == f.Path {
			return fail("the sandbox mounts something there already")
		}
		if mounts.Within(f.Path, op.Path) && (holder < 0 || mounts.Depth(op.Path) >= mounts.Depth(p.Ops[holder].Path)) {
			holder = i
		}
	}
	if holder < 0 || p.Ops[holder].Kind != mounts.OpTmpfs || p.Ops[holder].ReadOnly {
		return fail("nsrun makes such a file only in a writable tmpfs of the sandbox's (--tmpfs, or the /tmp over a host root)")
	}
	tmpfs := &p.Ops[holder]
	mp := mounts.Mountpoint{Rel: strings.TrimPrefix(f.Path, tmpfs.Path+"/")}
	if f.ReadOnly {
		p.Ops = append(p.Ops, mounts.Op{Kind: mounts.OpFile, Path: f.Path, ReadOnly: true, Content: f.Content, FileMode: f.Mode})
		tmpfs = &p.Ops[holder]
	} else {
		mp.Data, mp.Content, mp.Mode = true, f.Content, f.Mode
	}
	// Before the symlinks, which could otherwise redirect it.
	at := len(tmpfs.Mountpoints)
	for i, m := range tmpfs.Mountpoints {
		if m.Link != "" {
			at = i
			break
		}
	}
	tmpfs.Mountpoints = append(tmpfs.Mountpoints[:at], append([]mounts.Mountpoint{mp}, tmpfs.Mountpoints[at:]...)...)
	return nil
}

// withoutVar is env without name.
func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// addDevCore adds /dev/core -> /proc/kcore to the plan's /dev, as
// bubblewrap's --dev makes it; a link, so nothing is readable through it
// that /proc/kcore does not already let the payload read.
func addDevCore(p *mounts.Plan) {
	for i := range p.Ops {
		if p.Ops[i].Kind == mounts.OpDev {
			p.Ops[i].Mountpoints = append(p.Ops[i].Mountpoints, mounts.Mountpoint{Rel: "core", Link: "/proc/kcore"})
			return
		}
	}
}
