package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/changes"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/mounts"
)

// keepChanges gives each overlay of the plan its kept layer under
// p.KeepChanges (see changes.Keep), which the sandbox must not be able to
// write: inside what it may write, the payload could change what is kept
// and where it is applied.
func (c *Cmd) keepChanges(p *Policy, root string, rules []canonRule, in *mounts.Input) (string, *os.File, error) {
	if p.KeepChanges == "" {
		return "", nil, nil
	}
	fail := func(err error) (string, *os.File, error) {
		return "", nil, &SetupError{Code: ExitSetup, Op: "--keep-changes " + p.KeepChanges, Err: err}
	}
	dir, err := filepath.Abs(p.KeepChanges)
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
	var layers []changes.Layer
	var modes []uint32
	var idx []int
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
			return fail(fmt.Errorf("overlaps --overlay %s: the kept layers and the directory they change must be apart", r.Path))
		}
		fi, err := os.Stat(host)
		if err != nil {
			return fail(err)
		}
		layers = append(layers, changes.Layer{Path: r.Path, Host: host})
		modes = append(modes, uint32(fi.Mode().Perm()|fi.Mode()&os.ModeSticky))
		idx = append(idx, i)
	}
	if len(layers) == 0 {
		return fail(fmt.Errorf("no --overlay to keep the changes of"))
	}
	for _, r := range rules {
		host := r.hostPath()
		if r.Canon == "/" && !r.mapped() {
			host = root
		}
		if r.Access == ReadWrite && paths.Within(dir, host) {
			// Shown writable at its place or another: the payload could
			// change what is kept and where it is applied.
			return fail(fmt.Errorf("is inside %s, which the sandbox may write (%s %s); choose a directory outside", host, r.Rule.Option(), r.Canon))
		}
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(parent, &fs); err == nil && fs.Type == unix.OVERLAYFS_SUPER_MAGIC {
		return fail(fmt.Errorf("%s is on an overlay filesystem (a container's own?), which the kernel takes as no overlay's upper layer: choose a directory on another filesystem (a volume, a tmpfs)", parent))
	}
	dirs, lock, err := changes.Keep(dir, layers, modes)
	if err != nil {
		return fail(err)
	}
	for n, i := range idx {
		id, err := plan.DirIdentity(dirs[n])
		if err != nil {
			lock.Close()
			return fail(err)
		}
		in.Rules[i].Upper, in.Rules[i].UpperID = dirs[n], id
	}
	return dir, lock, nil
}

// recordMade tells the kept directory which entries of its upper layers
// are the mount points the plan makes there, not the payload's changes.
func recordMade(kept string, plan *mounts.Plan) error {
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
			return fmt.Errorf("--keep-changes %s: %w", kept, err)
		}
	}
	return nil
}
