package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/changes"
	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// KeepChanges gives each overlay of the plan its kept layer under keep
// (Policy.KeepChanges, as given; see changes.Keep), which the sandbox
// must not be able to write: inside what it may write, the payload could
// change what is kept and where it is applied. It returns the kept
// directory, made canonical, and its lock, to close once the sandbox is
// gone; nothing when keep is "".
func KeepChanges(keep, root string, rules []Rule, in *mounts.Input) (string, *os.File, error) {
	if keep == "" {
		return "", nil, nil
	}
	fail := func(err error) (string, *os.File, error) {
		return "", nil, &Error{Err: errs.New("%s: %w", errs.KeepChanges.With(keep), err)}
	}
	dir, err := filepath.Abs(keep)
	if err != nil {
		return fail(err)
	}
	// Where it is, before anything is made there: the directory above it
	// canonical, the name itself never followed (Keep refuses a symlink).
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return fail(err)
	}
	dir = filepath.Join(parent, filepath.Base(dir))
	layers, modes, idx, err := keptLayers(dir, root, in)
	if err != nil {
		return fail(err)
	}
	if err := keptApart(dir, root, parent, rules); err != nil {
		return fail(err)
	}
	dirs, lock, err := changes.Keep(dir, layers, modes)
	if err != nil {
		return fail(err)
	}
	for n, i := range idx {
		id, err := DirIdentity(dirs[n])
		if err != nil {
			lock.Close()
			return fail(err)
		}
		in.Rules[i].Upper, in.Rules[i].UpperID = dirs[n], id
	}
	return dir, lock, nil
}

// keptLayers are the overlays of in whose changes are kept in dir, with
// their directories' modes and their places in in.Rules.
func keptLayers(dir, root string, in *mounts.Input) (layers []changes.Layer, modes []uint32, idx []int, err error) {
	for i, r := range in.Rules {
		if r.Access != mounts.Overlay {
			continue
		}
		host := r.Source
		if host == "" {
			host = r.Path
		}
		if r.Path == "/" {
			host = root
		}
		if paths.Within(dir, host) || paths.Within(host, dir) {
			return nil, nil, nil, errs.New("overlaps %s: the kept layers and the directory they change must be apart", errs.RuleOverlay.With(r.Path))
		}
		fi, err := os.Stat(host)
		if err != nil {
			return nil, nil, nil, err
		}
		layers = append(layers, changes.Layer{Path: r.Path, Host: host})
		modes = append(modes, uint32(fi.Mode().Perm()|fi.Mode()&os.ModeSticky))
		idx = append(idx, i)
	}
	if len(layers) == 0 {
		return nil, nil, nil, errs.New("no %s to keep the changes of", errs.RuleOverlay)
	}
	return layers, modes, idx, nil
}

// keptApart refuses a kept directory the sandbox may write, or one on an
// overlay filesystem, which the kernel takes as no overlay's upper layer.
func keptApart(dir, root, parent string, rules []Rule) error {
	for _, r := range rules {
		host := r.HostPath()
		if r.Canon == "/" && !r.Mapped() {
			host = root
		}
		if r.Access == mounts.ReadWrite && paths.Within(dir, host) {
			opt := "rw"
			if r.From != "" {
				opt = "bind"
			}
			// Shown writable at its place or another: the payload could
			// change what is kept and where it is applied.
			return fmt.Errorf("is inside %s, which the sandbox may write (%s %s); choose a directory outside", host, opt, r.Canon)
		}
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(parent, &fs); err == nil && fs.Type == unix.OVERLAYFS_SUPER_MAGIC {
		return fmt.Errorf("%s is on an overlay filesystem (a container's own?), which the kernel takes as no overlay's upper layer: choose a directory on another filesystem (a volume, a tmpfs)", parent)
	}
	return nil
}

// RecordMade tells the kept directory which entries of its upper layers
// are the mount points the plan makes there, not the payload's changes.
func RecordMade(kept string, plan *mounts.Plan) error {
	for _, op := range append([]mounts.Op{plan.Root}, plan.Ops...) {
		if op.Kind != mounts.OpOverlay || op.Upper == "" || len(op.Mountpoints) == 0 {
			continue
		}
		n, err := strconv.Atoi(filepath.Base(op.Upper))
		if err != nil || n < 1 {
			return fmt.Errorf("layer %s: not one of %s's", op.Upper, kept)
		}
		var rels []string
		for _, mp := range op.Mountpoints {
			for r := mp.Rel; r != "." && r != "/" && r != ""; r = filepath.Dir(r) {
				rels = append(rels, r)
			}
		}
		if err := changes.Made(kept, n-1, rels); err != nil {
			return errs.New("%s: %w", errs.KeepChanges.With(kept), err)
		}
	}
	return nil
}
