package mounts

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Access is what a rule makes of a path.
type Access int

const (
	// ReadOnly binds the host path read-only, nosuid, nodev.
	ReadOnly Access = iota + 1
	// ReadWrite binds the host path writable (still nosuid, nodev).
	ReadWrite
	// Deny hides the host path behind an empty read-only directory or file.
	Deny
	// Tmpfs puts a fresh, empty, writable tmpfs at the path.
	Tmpfs
)

func (a Access) String() string {
	switch a {
	case ReadOnly:
		return "ro"
	case ReadWrite:
		return "rw"
	case Deny:
		return "deny"
	case Tmpfs:
		return "tmpfs"
	}
	return fmt.Sprintf("Access(%d)", int(a))
}

// Identity names an inode; a bind is refused unless its source still is it.
type Identity struct {
	Dev, Ino uint64
}

// Rule places one host path in the sandbox, at the same place.
type Rule struct {
	Path     string // absolute and canonical
	Access   Access
	Dir      bool     // the path is a directory (always true for Tmpfs)
	ID       Identity // of the host path, for ReadOnly and ReadWrite
	Mode     uint32   // permission bits of a Tmpfs root (0 means 0755)
	Optional bool     // skip the rule if the mount point is missing inside
}

// Link is a symlink on the way to a rule's path as the user named it, at
// its canonical place, with its target as read from the host.
type Link struct {
	Path   string // absolute and canonical up to its last component
	Target string
}

// Input is everything a plan depends on.
type Input struct {
	Root   string   // host directory seen as "/" inside; "" means "/"
	RootID Identity // of Root
	Rules  []Rule   // in the order given: for the same path the last wins
	// Links are recreated where they would otherwise be missing: inside a
	// tmpfs the plan makes (so that `--rw /tmp/link/ws` still resolves in
	// the sandbox). Elsewhere the host's own link is already visible.
	Links []Link
	// TmpfsSize caps every writable tmpfs (bytes); 0 leaves the kernel's
	// default, half of RAM.
	TmpfsSize uint64
	// ProtectProc covers /proc/sys, sysrq-trigger, irq and bus read-only.
	// A sandbox whose user is the host's root needs it (those files are
	// root's and its writes would reach the host); for others the files'
	// owner already refuses, and leaving /proc uncovered lets a nested
	// sandbox mount a procfs of its own (the kernel wants the outer one
	// fully visible).
	ProtectProc bool
	// HostProc binds the caller's own /proc, read-only with its submounts,
	// instead of a fresh procfs (OpHostProc).
	HostProc bool
	// Files are read-only files nsrun writes itself, mounted last, each
	// over what is at its path (OpFile). One whose path is missing is left
	// out, unless it lies in a tmpfs of the plan, which gets a mount point
	// for it.
	Files []File
}

// File is a read-only file of the sandbox's own, with its content.
type File struct {
	Path    string // absolute and canonical
	Content string
}

// maxFile bounds a File's content: it travels in the spec and lives in a
// small scratch tmpfs.
const maxFile = 64 << 10

// OpKind says how an Op mounts.
type OpKind int

const (
	// OpBind binds the host tree at Source onto Path.
	OpBind OpKind = iota + 1
	// OpTmpfs mounts a fresh tmpfs on Path.
	OpTmpfs
	// OpEmptyFile binds an empty read-only file onto Path.
	OpEmptyFile
	// OpDev mounts the sandbox's /dev on Path.
	OpDev
	// OpProc mounts a procfs of the sandbox's PID namespace on Path; with
	// ReadOnly, the entries that change the host are covered read-only.
	OpProc
	// OpHostProc binds the procfs the builder sees at /proc onto Path,
	// read-only, nosuid, nodev and noexec, with its submounts: the files a
	// container runtime masks with binds stay masked.
	OpHostProc
	// OpFile binds a read-only file holding Content onto Path.
	OpFile
)

// Mountpoint is a path to create inside a fresh filesystem so that a later
// Op can mount on it.
type Mountpoint struct {
	Rel  string // relative to the Op's Path
	Dir  bool
	Link string // if set, a symlink with this target instead
}

// Op is one mount of a plan.
type Op struct {
	Kind        OpKind
	Path        string // where inside the sandbox
	Source      string // host path, for OpBind
	ID          Identity
	ReadOnly    bool
	Dir         bool
	Mode        uint32
	Size        uint64 // bytes, for a writable OpTmpfs; 0: the kernel's default
	Optional    bool
	Mountpoints []Mountpoint
	Content     string // for OpFile
}

// Plan is the whole view: Root first, then Ops in order, parents first.
type Plan struct {
	Root Op
	Ops  []Op
	// Unchanged are read-only rules left out because an ancestor already
	// shows the same host tree read-only at the same place.
	Unchanged []string
	// Remount sets mount attributes by remounting each mount found in
	// /proc/self/mountinfo, as Build does by itself on kernels without
	// mount_setattr; setting it exercises that path on newer kernels.
	Remount bool
}

// Reserved paths are built by nsrun itself; rules may not touch them, since
// a host /proc or /dev inside would undo the PID namespace and the device
// allow-list.
var reserved = []string{"/dev", "/proc"}

// Within reports whether p is base or below it. Both must be clean and
// absolute.
func Within(p, base string) bool {
	if base == "/" {
		return true
	}
	return p == base || strings.HasPrefix(p, base+"/")
}

// Depth is the number of components in a clean absolute path.
func Depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// Make turns the input into a plan. It fails on a path that is not clean and
// absolute, on a rule under /dev or /proc, and on a rule that would need to
// mount below a file.
func Make(in Input) (*Plan, error) {
	root := in.Root
	if root == "" {
		root = "/"
	}
	plan := &Plan{Root: Op{Kind: OpBind, Path: "/", Source: root, ID: in.RootID, ReadOnly: true, Dir: true}}

	last := map[string]Rule{}
	for _, r := range in.Rules {
		if err := checkRule(r); err != nil {
			return nil, err
		}
		if r.Path == "/" {
			switch r.Access {
			case ReadOnly:
				plan.Root.ReadOnly = true
			case ReadWrite:
				plan.Root.ReadOnly = false
			default:
				return nil, fmt.Errorf("%s /: the root can only be read-only or writable", r.Access)
			}
			delete(last, "/")
			continue
		}
		last[r.Path] = r
	}

	type ranked struct {
		Rule
		depth int
	}
	sorted := make([]ranked, 0, len(last))
	for _, r := range last {
		sorted = append(sorted, ranked{r, Depth(r.Path)})
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].depth != sorted[j].depth {
			return sorted[i].depth < sorted[j].depth
		}
		return sorted[i].Path < sorted[j].Path
	})
	rules := make([]Rule, len(sorted))
	for i, r := range sorted {
		rules[i] = r.Rule
	}

	ops := []Op{
		{Kind: OpDev, Path: "/dev", Dir: true},
		{Kind: OpProc, Path: "/proc", Dir: true, ReadOnly: in.ProtectProc},
	}
	if in.HostProc {
		ops[1] = Op{Kind: OpHostProc, Path: "/proc", Source: "/proc", Dir: true, ReadOnly: true}
	}
	index := map[string]int{}
	for _, r := range rules {
		op := opFor(r)
		if op.Kind == OpTmpfs && !op.ReadOnly {
			op.Size = in.TmpfsSize
		}
		parent := nearest(index, r.Path)
		if redundant(op, plan.Root, ops, parent) {
			plan.Unchanged = append(plan.Unchanged, r.Path)
			continue
		}
		if parent >= 0 {
			p := &ops[parent]
			if !p.Dir {
				return nil, fmt.Errorf("%s %s: %s is a file and cannot hold it", r.Access, r.Path, p.Path)
			}
			if p.Kind == OpTmpfs {
				rel := strings.TrimPrefix(r.Path, p.Path+"/")
				p.Mountpoints = append(p.Mountpoints, Mountpoint{Rel: rel, Dir: op.Dir})
			}
		}
		index[r.Path] = len(ops)
		ops = append(ops, op)
	}
	ops, err := addFiles(addLinks(ops, index, in.Links, rules), index, in.Files)
	if err != nil {
		return nil, err
	}
	plan.Ops = ops
	return plan, nil
}

// addFiles appends an OpFile for each file, after everything else so it
// lies over what is there; in a writable tmpfs of the plan its mount
// point is made, elsewhere a missing path leaves the file out.
func addFiles(ops []Op, index map[string]int, files []File) ([]Op, error) {
	for _, f := range files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == "/" {
			return nil, fmt.Errorf("file %q: not a clean absolute path", f.Path)
		}
		for _, res := range reserved {
			if Within(f.Path, res) {
				return nil, fmt.Errorf("file %s: %s is built by nsrun", f.Path, res)
			}
		}
		if len(f.Content) > maxFile {
			return nil, fmt.Errorf("file %s: over %d bytes", f.Path, maxFile)
		}
		op := Op{Kind: OpFile, Path: f.Path, ReadOnly: true, Content: f.Content, Optional: true}
		if i, ok := index[f.Path]; ok && ops[i].Dir {
			return nil, fmt.Errorf("file %s: a directory rule is there", f.Path)
		}
		if parent := nearest(index, f.Path); parent >= 0 {
			p := &ops[parent]
			if !p.Dir {
				return nil, fmt.Errorf("file %s: %s is a file and cannot hold it", f.Path, p.Path)
			}
			if p.Kind == OpTmpfs && !p.ReadOnly {
				p.Mountpoints = append(p.Mountpoints, Mountpoint{Rel: strings.TrimPrefix(f.Path, p.Path+"/")})
				op.Optional = p.Optional
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// addLinks adds each link that lies in a writable tmpfs of the plan to its
// mount points, after every directory: a link made first could otherwise
// redirect the creation of a later mount point. A link with a rule at or
// below it is left out, as is a second link at the same path.
func addLinks(ops []Op, index map[string]int, links []Link, rules []Rule) []Op {
	seen := map[string]bool{}
	for _, l := range links {
		if seen[l.Path] || l.Path == "/" || !path.IsAbs(l.Path) || path.Clean(l.Path) != l.Path {
			continue
		}
		seen[l.Path] = true
		clash := false
		for _, r := range rules {
			clash = clash || Within(r.Path, l.Path)
		}
		parent := nearest(index, l.Path)
		// Not in the empty directory that stands for a --deny.
		if clash || parent < 0 || ops[parent].Kind != OpTmpfs || ops[parent].ReadOnly {
			continue
		}
		p := &ops[parent]
		p.Mountpoints = append(p.Mountpoints, Mountpoint{Rel: strings.TrimPrefix(l.Path, p.Path+"/"), Link: l.Target})
	}
	return ops
}

// redundant reports whether op, a read-only bind of a host path onto the
// same place, would show exactly what its nearest ancestor already shows
// there: the host's tree, read-only, nosuid, nodev. Such a bind is left
// out; a sandbox with many read-only rules then costs no more to build.
func redundant(op, root Op, ops []Op, parent int) bool {
	if op.Kind != OpBind || !op.ReadOnly {
		return false
	}
	if parent < 0 {
		return root.ReadOnly && root.Source == "/"
	}
	p := ops[parent]
	return p.Kind == OpBind && p.ReadOnly
}

func checkRule(r Rule) error {
	if !path.IsAbs(r.Path) || path.Clean(r.Path) != r.Path {
		return fmt.Errorf("%s %q: not a clean absolute path", r.Access, r.Path)
	}
	for _, res := range reserved {
		if Within(r.Path, res) {
			return fmt.Errorf("%s %s: %s is built by nsrun and cannot be changed by a rule", r.Access, r.Path, res)
		}
	}
	switch r.Access {
	case ReadOnly, ReadWrite, Deny:
	case Tmpfs:
		if !r.Dir {
			return fmt.Errorf("tmpfs %s: not a directory", r.Path)
		}
	default:
		return fmt.Errorf("%s: unknown access %d", r.Path, int(r.Access))
	}
	return nil
}

func opFor(r Rule) Op {
	op := Op{Path: r.Path, Dir: r.Dir, Optional: r.Optional}
	switch r.Access {
	case ReadOnly, ReadWrite:
		op.Kind, op.Source, op.ID, op.ReadOnly = OpBind, r.Path, r.ID, r.Access == ReadOnly
	case Deny:
		if r.Dir {
			op.Kind, op.ReadOnly, op.Mode = OpTmpfs, true, 0o555
		} else {
			op.Kind, op.ReadOnly = OpEmptyFile, true
		}
	case Tmpfs:
		op.Kind, op.Mode = OpTmpfs, r.Mode
		if op.Mode == 0 {
			op.Mode = 0o755
		}
	}
	return op
}

// nearest returns the index of the deepest rule op that is a proper
// ancestor of p, or -1 when only the root covers it. Walking up the path
// keeps planning linear in the number of rules.
func nearest(index map[string]int, p string) int {
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if i, ok := index[d]; ok {
			return i
		}
	}
	return -1
}
