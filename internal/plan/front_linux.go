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
	if s == nil || (s.Argv0 == "" && !s.NoSandboxEnv && !s.DevCore && !s.AsPid1 && s.Caps == nil) {
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
