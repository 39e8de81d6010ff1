package mounts

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// placeMountpoints makes sure every op finds its mount point inside, and
// turns directory and symlink rules into entries to make: where the tree
// an op lands in is the host's (or Root's), Lookup says whether the path
// exists there. A missing one is made in a fresh filesystem of the plan:
// an overlay's upper layer (a kept one's too: the caller tells its
// reader which entries are the plan's), or a mirror of the deepest
// directory that exists, when that is read-only. In a writable host tree
// making it would write to the host: that is an error (a File that is
// not Required is left out instead). Optional ops whose path is missing
// are dropped.
func (plan *Plan) placeMountpoints(ops []Op, index map[string]int, in Input) ([]Op, error) {
	found := map[string]Found{}
	lookup := func(h string) (Found, error) {
		if f, ok := found[h]; ok {
			return f, nil
		}
		f, err := in.Lookup(h)
		if err == nil {
			found[h] = f
		}
		return f, err
	}
	mirrors := map[string]*Op{}
	keep := make([]bool, len(ops))
	for i := range ops {
		// place may add entries to the op that holds ops[i], an earlier
		// one: out is made once every op has been placed.
		k, err := plan.place(ops[i], ops, index, mirrors, in.Lookup != nil, lookup)
		if err != nil {
			return nil, err
		}
		keep[i] = k
	}
	out := make([]Op, 0, len(ops))
	for i, op := range ops {
		if keep[i] {
			out = append(out, op)
		}
	}
	return insertMirrors(out, mirrors), nil
}

// place checks one op's mount point and makes what is missing; keep is
// false for an op that needs no mount: a directory or symlink now an entry
// to make, one already there, an Optional op without its mount point.
func (plan *Plan) place(op Op, ops []Op, index map[string]int, mirrors map[string]*Op, canLook bool, lookup func(string) (Found, error)) (keep bool, err error) {
	pseudo := op.Kind == opDirectory || op.Kind == opSymlink
	if op.Pin || op.Kind == OpPinLink || op.Kind == OpMirror {
		return true, nil
	}
	parent := nearest(index, op.Path)
	if parent >= 0 && ops[parent].Kind == OpTmpfs {
		// layOut or addFiles made the entry in it, or left the file out.
		return !pseudo, nil
	}
	host, shown := hostOf(ops, parent, plan.Root, op.Path)
	if !shown {
		return !pseudo, nil // under a file: layOut refused it
	}
	if !canLook {
		if pseudo {
			return false, fmt.Errorf("%s: a %s needs a way to look at the host (Input.Lookup)", op.Path, kindName(op))
		}
		return true, nil
	}
	if (op.Kind == OpBind || op.Kind == OpOverlay) && op.Source == host {
		return true, nil // its own source: it exists, as checked by the caller
	}
	f, err := lookup(host)
	if err != nil {
		return false, planError(op, err)
	}
	inside := func(h string) string { return insidePath(ops, parent, plan.Root, h) }
	if op.Kind == OpFile && op.Mode == leftOutIfMissing && (f.Symlink || f.NotDir || f.Exists && f.Dir) {
		// A file of nsrun's own where the tree has a symlink or a
		// directory: that stays.
		plan.LeftOut = append(plan.LeftOut, op.Path)
		return false, nil
	}
	switch {
	case f.Symlink && f.Stop == host && op.Kind == opSymlink && f.Target == op.Target:
		return false, nil
	case f.Symlink && f.Stop == host && op.Kind == opSymlink:
		return false, planErrorf(op, "a symlink to %s is there inside the sandbox", f.Target)
	case f.Symlink:
		return false, planErrorf(op, "%s is a symlink inside the sandbox (to %s), and nsrun mounts and makes nothing through one: name the path without it", inside(f.Stop), f.Target)
	case f.NotDir:
		return false, planErrorf(op, "%s is a file inside the sandbox and cannot hold it", inside(f.Stop))
	case f.Exists && op.Kind == opDirectory:
		if !f.Dir {
			return false, planErrorf(op, "a file is there inside the sandbox")
		}
		return false, nil
	case f.Exists && op.Kind == opSymlink:
		return false, planErrorf(op, "%s is there inside the sandbox", map[bool]string{true: "a directory", false: "a file"}[f.Dir])
	case f.Exists:
		if f.Dir != op.Dir {
			what := map[bool]string{true: "a directory", false: "a file"}
			return false, planErrorf(op, "%s is there inside the sandbox, and this is %s", what[f.Dir], what[op.Dir])
		}
		return true, nil
	}
	// Missing from f.Stop down.
	if op.Optional {
		return false, nil
	}
	o := plan.Root
	if parent >= 0 {
		o = ops[parent]
	}
	if o.Kind == OpBind && !o.ReadOnly {
		if op.Kind == OpFile && op.Mode == leftOutIfMissing {
			plan.LeftOut = append(plan.LeftOut, op.Path)
			return false, nil
		}
		return false, planErrorf(op, "%s does not exist inside the sandbox, and nsrun makes nothing in the writable %s (it would be made on the host): create it there first, or choose another place",
			inside(f.Stop), o.Path)
	}
	plan.Created = append(plan.Created, op.Path)
	if o.Kind == OpOverlay {
		target := &plan.Root
		if parent >= 0 {
			target = &ops[parent]
		}
		target.Mountpoints = append(target.Mountpoints, mountpointFor(op, rel(op.Path, o.Path)))
		return !pseudo, nil
	}
	at := path.Dir(inside(f.Stop))
	mp := mountpointFor(op, rel(op.Path, at))
	switch {
	case at == o.Path && parent < 0:
		plan.Root.Mirror = append(plan.Root.Mirror, mp)
	case at == o.Path:
		ops[parent].Mirror = append(ops[parent].Mirror, mp)
	default:
		m := mirrors[at]
		if m == nil {
			m = &Op{Kind: OpMirror, Path: at, Dir: true, ReadOnly: true}
			mirrors[at] = m
		}
		m.Mirror = append(m.Mirror, mp)
	}
	return !pseudo, nil
}

// insidePath is the sandbox path of the host path h, below the op at parent
// (-1: the root) that shows it.
func insidePath(ops []Op, parent int, root Op, h string) string {
	o := root
	if parent >= 0 {
		o = ops[parent]
	}
	return path.Join(o.Path, rel(h, o.Source))
}

// rel is p relative to base, a directory at or above it ("" for base).
func rel(p, base string) string {
	if base == "/" {
		return strings.TrimPrefix(p, "/")
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, base), "/")
}

// insertMirrors puts each mirror op before the first op below its
// directory (after the op that shows the directory, which comes before
// anything below it), shallow ones first.
func insertMirrors(ops []Op, mirrors map[string]*Op) []Op {
	if len(mirrors) == 0 {
		return ops
	}
	dirs := make([]string, 0, len(mirrors))
	for d := range mirrors {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		if di, dj := Depth(dirs[i]), Depth(dirs[j]); di != dj {
			return di < dj
		}
		return dirs[i] < dirs[j]
	})
	for _, d := range dirs {
		at := len(ops)
		for i, op := range ops {
			if op.Path != d && Within(op.Path, d) && op.Kind != OpDev {
				at = i
				break
			}
		}
		ops = append(ops[:at], append([]Op{*mirrors[d]}, ops[at:]...)...)
	}
	return ops
}

// PlanError is a path of the plan that cannot be placed, and why: the
// caller names the rule that asked for it.
type PlanError struct {
	Path string
	Kind string // what was to be there: "ro", "rw", "tmpfs", "dir", ...
	Err  error
}

func (e *PlanError) Error() string { return e.Kind + " " + e.Path + ": " + e.Err.Error() }

func (e *PlanError) Unwrap() error { return e.Err }

func planError(op Op, err error) error {
	return &PlanError{Path: op.Path, Kind: kindName(op), Err: err}
}

func planErrorf(op Op, format string, a ...any) error {
	return planError(op, fmt.Errorf(format, a...))
}

func kindName(op Op) string {
	switch op.Kind {
	case OpBind:
		if op.ReadOnly {
			return "ro"
		}
		return "rw"
	case OpTmpfs:
		if op.ReadOnly {
			return "deny"
		}
		return "tmpfs"
	case OpEmptyFile:
		return "deny"
	case OpOverlay:
		return "overlay"
	case OpFile:
		return "file"
	case opDirectory:
		return "dir"
	case opSymlink:
		return "symlink"
	}
	return "mount point"
}

// devices checks the devices for /dev and returns them with paths
// relative to it. The sandbox's own nodes (null, tty, ...) are left as
// they are when the same host node is asked for.
func devices(in []Node) ([]Node, error) {
	own := map[string]bool{}
	for _, n := range devNodes {
		own[n] = true
	}
	seen := map[string]string{}
	var out []Node
	for _, d := range in {
		if !path.IsAbs(d.Path) || path.Clean(d.Path) != d.Path || !Within(d.Path, "/dev") || d.Path == "/dev" {
			return nil, fmt.Errorf("dev %s: not a path under /dev", d.Path)
		}
		r := rel(d.Path, "/dev")
		top, _, _ := strings.Cut(r, "/")
		switch {
		case own[r] && d.Source == d.Path:
			continue
		case own[r] || devFixed[top]:
			return nil, fmt.Errorf("dev %s: /dev/%s is the sandbox's own", d.Path, top)
		}
		if src, ok := seen[r]; ok {
			if src == d.Source {
				continue
			}
			return nil, fmt.Errorf("dev %s: given from %s and from %s", d.Path, src, d.Source)
		}
		seen[r] = d.Source
		d.Path = r
		out = append(out, d)
	}
	for _, d := range out {
		for _, o := range out {
			if o.Path != d.Path && Within(d.Path, o.Path) {
				return nil, fmt.Errorf("dev /dev/%s: /dev/%s is a device and cannot hold it", d.Path, o.Path)
			}
		}
	}
	return out, nil
}
