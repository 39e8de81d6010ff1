package plan

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
)

// applyOverlays completes the overlays the plan mounts at the paths of
// ovs with bubblewrap's layers (front.Overlay), then derives the Landlock
// rules from the plan again: a read-only overlay gets read and execute
// only, where the plan's writable overlay had write.
func applyOverlays(spec *launch.Spec, ovs []front.Overlay) error {
	for _, o := range ovs {
		if err := applyOverlay(spec.Plan, o); err != nil {
			return err
		}
	}
	if len(ovs) == 0 || spec.Landlock == nil {
		return nil
	}
	rules, err := landlock.Rules(FullGrants(spec.Plan), spec.Landlock.Handled.FS, false, listDir)
	if err != nil {
		return &Error{Op: "landlock rules", Err: err}
	}
	spec.Landlock.Paths = rules
	return nil
}

// applyOverlay completes the overlay at o.Path.
func applyOverlay(p *mounts.Plan, o front.Overlay) error {
	fail := func(err error) error {
		return &Error{Kind: KindSetup, Op: "lay the overlay at " + o.Path, Err: err}
	}
	var op *mounts.Op
	for i := range p.Ops {
		if p.Ops[i].Kind == mounts.OpOverlay && p.Ops[i].Path == o.Path {
			op = &p.Ops[i]
		}
	}
	if op == nil || op.Upper != "" {
		return fail(errors.New("the sandbox mounts no private overlay there"))
	}
	for _, l := range o.Lower {
		id, err := DirIdentity(l)
		if err != nil {
			return fail(fmt.Errorf("lower directory %s: %w", l, err))
		}
		op.Lower = append(op.Lower, mounts.Layer{Path: l, ID: id})
	}
	switch {
	case o.ReadOnly:
		if len(op.Lower) == 0 {
			return fail(errors.New("a read-only overlay needs two lower directories"))
		}
		if len(op.Mountpoints) > 0 {
			return fail(fmt.Errorf("nothing can be mounted inside a read-only overlay (%s/%s)", o.Path, op.Mountpoints[0].Rel))
		}
		op.ReadOnly = true
	case o.Upper != "":
		upper, err := overlayDir("upper", o.Upper)
		if err != nil {
			return fail(err)
		}
		work, err := overlayDir("work", o.Work)
		if err != nil {
			return fail(err)
		}
		if upper.ID.Dev != work.ID.Dev {
			return fail(fmt.Errorf("the upper directory %s and the work directory %s are on different file systems", o.Upper, o.Work))
		}
		op.UpperDir, op.WorkDir = upper, work
	}
	return nil
}

// overlayDir is an overlay's upper or work directory on the host: a
// directory (not a symlink to one) the caller may write.
func overlayDir(what, p string) (mounts.Layer, error) {
	id, err := DirIdentity(p)
	if err != nil {
		return mounts.Layer{}, fmt.Errorf("%s directory %s: %w", what, p, err)
	}
	if err := unix.Access(p, unix.W_OK|unix.X_OK); err != nil {
		return mounts.Layer{}, fmt.Errorf("%s directory %s: %w", what, p, &os.PathError{Op: "access", Path: p, Err: err})
	}
	return mounts.Layer{Path: p, ID: id}, nil
}
