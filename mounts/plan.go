package mounts

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nsrun/nsrun/internal/paths"
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
	// Overlay shows the host directory writable: writes land in an upper
	// layer (a private tmpfs, or Rule.Upper) and the host never changes.
	Overlay
	// Directory makes an empty directory at the path where none is.
	Directory
	// Symlink makes a symlink at the path, to Rule.Target.
	Symlink
	// Copy shows a read-only copy of a host file (Input.Files, not a Rule).
	Copy
	// Device shows a host character device (Input.Devices, not a Rule).
	Device
	// BlockDevice shows a host block device (Input.Devices, not a Rule).
	BlockDevice
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
	case Overlay:
		return "overlay"
	case Directory:
		return "dir"
	case Symlink:
		return "symlink"
	case Copy:
		return "file"
	case Device:
		return "dev"
	case BlockDevice:
		return "dev-block"
	}
	return fmt.Sprintf("Access(%d)", int(a))
}

// Identity names an inode; a bind is refused unless its source still is it.
type Identity struct {
	Dev, Ino uint64
}

// Rule places what its Access says at Path in the sandbox: for ReadOnly,
// ReadWrite and Overlay the host path Source (Path itself when empty).
type Rule struct {
	Path     string // inside the sandbox, absolute and canonical
	Access   Access
	Source   string   // the host path shown at Path; "" means Path
	Dir      bool     // the path is a directory (always true for Tmpfs, Overlay, Directory)
	ID       Identity // of the host path, for ReadOnly, ReadWrite and Overlay
	Mode     uint32   // permission bits of a Tmpfs root (0 means 0755)
	Optional bool     // skip the rule if the mount point is missing inside
	Target   string   // of a Symlink, as given
	// Upper is the host directory that keeps an Overlay's changes (it
	// holds the upper and work directories); "" puts them in a private
	// tmpfs, gone with the sandbox.
	Upper   string
	UpperID Identity

	link   bool // added by Make: a ReadOnly rule that pins a symlink
	pin    bool // added by Make to hold a directory in place
	hidden bool // added by Make: a Deny that covers a kernel filesystem
}

// Node is a host device shown in the sandbox's /dev.
type Node struct {
	Path   string // inside, under /dev
	Source string // the host device
	ID     Identity
	Block  bool // a block device; a character device otherwise
}

// Link is a symlink on the way to a rule's path as the user named it, at
// its canonical place, with its target as read from the host.
type Link struct {
	Path   string // absolute and canonical up to its last component
	Target string
	ID     Identity // of the link itself, for a pin
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
	// LinksToPin are the links on the way to a read-only or denied rule's
	// path as the user named it. One that lies in a host directory the
	// sandbox may write is bound onto itself (OpPinLink), so the payload
	// cannot remove, rename or replace it, and the host, which later
	// follows the same link, still reaches the protected tree. (Elsewhere
	// the link is read-only, hidden, or in a tmpfs the host never sees.)
	LinksToPin []Link
	// TmpfsSize caps every writable tmpfs, /dev/shm included (bytes); 0
	// leaves the kernel's default, half of RAM.
	TmpfsSize uint64
	// ProtectProc covers /proc/sys, sysrq-trigger, irq and bus read-only,
	// and hides the kernel's root-only reports (procHidden, sysHidden):
	// what a kernel exploit or a hardware side channel starts from. A
	// sandbox whose user is the host's root needs it (those files are
	// root's: its writes would reach the host and its reads pass the
	// files' modes); for others the files' owner already refuses, and
	// leaving /proc and /sys uncovered lets a nested sandbox mount its own
	// (the kernel wants the outer ones fully visible).
	ProtectProc bool
	// HostProc binds the caller's own /proc, read-only with its submounts,
	// instead of a fresh procfs (OpHostProc).
	HostProc bool
	// HostSys binds the caller's own /sys, read-only with its submounts,
	// instead of a fresh sysfs of the sandbox's network namespace
	// (OpHostSys).
	HostSys bool
	// Console links /dev/console to pts/0, the first pty of the sandbox's
	// devpts instance: the terminal its init allocates for the payload.
	Console bool
	// Pins are directories that must keep their place (nsrun watches them
	// for names that must not appear): each is pinned as the ancestors of
	// a read-only or deny rule are.
	Pins []string
	// Identify gives the device and inode of a host directory the plan
	// pins, from the caller's lstat; the builder checks them as it checks
	// every bind. It is needed only when something must be pinned.
	Identify func(path string) (Identity, error)
	// Files are read-only files nsrun writes itself, mounted last, each
	// over what is at its path (OpFile). Where the path is missing inside,
	// a mount point is made for it as for any rule (see Lookup); one that
	// cannot be made is an error for a Required file and leaves the others
	// out (Plan.LeftOut). Without Lookup, a file is left out where its
	// path is missing at build time, unless it lies in a tmpfs of the
	// plan, which gets a mount point for it.
	Files []File
	// Devices are host devices shown in /dev, each bound without nodev.
	Devices []Node
	// KernelMounts are the host's mounts of kernel filesystems (KernelFS:
	// procfs, sysfs, nsfs, ...), as the caller's mount table lists them
	// when it plans: wherever a tree the plan shows carries one along, it
	// is covered as by a Deny rule (Op.Hidden), so that a host procfs
	// mounted in, say, a chroot does not show the host's processes.
	KernelMounts []KernelMount
	// Lookup says what is at a host path, following no symlink: the
	// planner asks it where a mount point, a directory or a symlink must
	// be inside and the host (or Root) tree shown there decides whether it
	// exists. A missing one is made without writing to the host: in a
	// tmpfs or an overlay of the plan, or in a read-only directory the plan
	// mirrors (Op.Mirror); under a writable host tree it is an error. With
	// Lookup nil, mount points are taken to exist.
	Lookup func(hostPath string) (Found, error)
}

// Found is what Lookup found at a host path.
type Found struct {
	Exists bool // all of the path exists
	Dir    bool // and is a directory
	// Stop is the host path where the walk stopped short: the first
	// missing component, or a symlink or a file with more below it.
	Stop    string
	Symlink bool   // Stop is a symlink (at the end of the path too)
	Target  string // of that symlink
	NotDir  bool   // Stop is not a directory and more of the path is below it
}

// File is a read-only file of the sandbox's own, with its content.
type File struct {
	Path    string // absolute and canonical
	Content string
	// Required makes a File that cannot be placed an error; otherwise it
	// is left out and listed in Plan.LeftOut.
	Required bool
}

// maxFile bounds a File's content: it travels in the spec and lives in a
// scratch tmpfs sized for the plan's files.
const maxFile = 16 << 20

// OpKind says how an Op mounts.
type OpKind int

const (
	// OpBind binds the host tree at Source onto Path.
	OpBind OpKind = iota + 1
	// OpTmpfs mounts a fresh tmpfs on Path.
	OpTmpfs
	// OpEmptyFile binds an empty read-only file onto Path.
	OpEmptyFile
	// OpDev mounts the sandbox's /dev on Path, with the links of its
	// Mountpoints added.
	OpDev
	// OpProc mounts a procfs of the sandbox's PID namespace on Path; with
	// ReadOnly, the entries that change the host are covered read-only.
	OpProc
	// OpHostProc binds the procfs the builder sees at /proc onto Path,
	// read-only, nosuid, nodev and noexec, with its submounts: the files a
	// container runtime masks with binds stay masked.
	OpHostProc
	// OpPinLink binds the host symlink at Path (Source) onto itself: as a
	// mount point it cannot be removed, renamed or replaced.
	OpPinLink
	// OpSys mounts a sysfs of the sandbox's network namespace on Path,
	// read-only: devices and drivers as the host's, but only the
	// namespace's own network interfaces, and none of the host's mounts
	// under /sys (cgroups, debugfs, securityfs, ...).
	OpSys
	// OpHostSys binds the sysfs the builder sees at /sys onto Path,
	// read-only, nosuid, nodev and noexec, with its submounts.
	OpHostSys
	// OpFile binds a read-only file holding Content onto Path.
	OpFile
	// OpOverlay mounts an overlay of the host directory Source (the lower
	// layer, read-only) on Path, with the upper layer in Upper or a
	// private tmpfs. Mountpoints are made in it before it is attached.
	OpOverlay
	// OpMirror covers the directory at Path with a tmpfs holding each of
	// its entries bound back in place (the same mounts, attributes and
	// contents) and Mirror's new entries, then makes it read-only: mount
	// points for what the directory lacks, without writing to it.
	OpMirror
	// opDirectory and opSymlink are Directory and Symlink rules while the
	// plan is made; they end as mount points of a tmpfs, an overlay or a
	// mirror, never as ops.
	opDirectory
	opSymlink
)

// Mountpoint is a path to create inside a fresh filesystem so that a later
// Op can mount on it.
type Mountpoint struct {
	Rel  string // relative to the Op's Path
	Dir  bool
	Link string // if set, a symlink with this target instead
	// Data makes a regular file holding Content with permission bits
	// Mode, instead of an empty one to mount on; it must not exist yet.
	Data    bool
	Content string
	Mode    uint32
}

// Op is one mount of a plan.
type Op struct {
	Kind        OpKind
	Path        string // where inside the sandbox
	Source      string // host path, for OpBind and OpOverlay (the lower layer)
	ID          Identity
	ReadOnly    bool
	Dir         bool
	Mode        uint32
	Size        uint64 // bytes, of a writable OpTmpfs, an OpOverlay's tmpfs and OpDev's shm; 0: the kernel's default
	Optional    bool
	Mountpoints []Mountpoint
	// Pin marks a writable bind of a directory onto itself that only holds
	// the directory in place (see Make).
	Pin     bool
	Content string // for OpFile
	// FileMode, when not 0, is an OpFile's permission bits (0444
	// otherwise).
	FileMode uint32
	// Mirror, on OpMirror, an OpBind or the root, are entries the directory
	// at Path lacks: it is covered by a mirror of itself holding them (see
	// OpMirror), after it is mounted.
	Mirror []Mountpoint
	// Upper and UpperID are an OpOverlay's kept layer (see Rule.Upper).
	Upper   string
	UpperID Identity
	// Lower are an OpOverlay's lower layers beneath Source, the highest
	// first (bubblewrap's --overlay-src, several of them).
	Lower []Layer
	// UpperDir and WorkDir, when UpperDir.Path is set, are an OpOverlay's
	// upper directory itself and the kernel's work directory beside it, on
	// the same file system (bubblewrap's --overlay RWSRC WORKDIR), in
	// place of Upper or a private tmpfs. An OpOverlay that is ReadOnly has
	// no upper layer at all: the kernel then needs Source and at least one
	// Lower, and no Mountpoints can be made in it.
	UpperDir, WorkDir Layer
	// Devices are OpDev's host devices, at paths relative to Path.
	Devices []Node
	// Target is an opSymlink's.
	Target string
	// Covers, on the root or an OpBind, are the places in its tree, each
	// relative to Source, of mounts that Reveals, on each of which an
	// empty read-only tmpfs is mounted as soon as the tree is attached,
	// before anything can hide them (revealCovers).
	Covers []string
	// Hidden marks a cover nsrun adds by itself: over a kernel filesystem
	// a shown host tree carries (Input.KernelMounts), or over a root-only
	// report of the kernel's (Input.ProtectProc).
	Hidden bool
}

// Layer is a host directory an overlay takes, with the identity recorded
// when it was planned: it is opened without following a symlink and
// refused if it is another file by then.
type Layer struct {
	Path string
	ID   Identity
}

// Plan is the whole view: Root first, then Ops in order, parents first.
type Plan struct {
	Root Op
	Ops  []Op
	// Unchanged are read-only rules left out because an ancestor already
	// shows the same host tree read-only at the same place.
	Unchanged []string
	// Created are the paths the plan makes inside that the tree shown
	// there lacks (mount points, directories, symlinks), and LeftOut the
	// Files that could not be placed.
	Created, LeftOut []string
	// Remount sets mount attributes by remounting each mount found in
	// /proc/self/mountinfo, as Build does by itself on kernels without
	// mount_setattr; setting it exercises that path on newer kernels.
	Remount bool
}

// procHidden and sysHidden are the root-only reports of the kernel that
// ProtectProc hides: the physical pages' state (kpage*: Rowhammer's and
// other side channels' map), the kernel's heap and address layout
// (slabinfo and the same counts per cache in /sys/kernel/slab,
// vmallocinfo, pagetypeinfo, timer_list, vmcoreinfo), the
// firmware's tables, the power meters (powercap: CVE-2020-8694's side
// channel) and idle page tracking. Each is covered where the kernel has
// it: a file by an empty one, a directory by an empty read-only tmpfs.
var (
	procHidden = []string{"kpagecgroup", "kpagecount", "kpageflags", "latency_stats", "pagetypeinfo", "sched_debug", "slabinfo", "timer_list", "vmallocinfo"}
	sysHidden  = []struct {
		rel string
		dir bool
	}{{"devices/virtual/powercap", true}, {"firmware", true}, {"kernel/mm/page_idle", true}, {"kernel/slab", true}, {"kernel/vmcoreinfo", false}}
)

// hidden is the ops that hide procHidden and sysHidden, each skipped
// where the kernel lacks it.
func hidden() []Op {
	ops := make([]Op, 0, len(procHidden)+len(sysHidden))
	for _, name := range procHidden {
		ops = append(ops, Op{Kind: OpEmptyFile, Path: "/proc/" + name, ReadOnly: true, Optional: true, Hidden: true})
	}
	for _, e := range sysHidden {
		op := Op{Kind: OpEmptyFile, Path: "/sys/" + e.rel, ReadOnly: true, Optional: true, Hidden: true}
		if e.dir {
			op.Kind, op.Dir, op.Mode = OpTmpfs, true, 0o555
		}
		ops = append(ops, op)
	}
	return ops
}

// Reserved paths are built by nsrun itself; rules may not touch them, since
// a host /proc or /dev inside would undo the PID namespace and the device
// allow-list, and a host /sys the network namespace's view.
var reserved = []string{"/dev", "/proc", "/sys"}

// Within reports whether p is base or below it. Both must be clean and
// absolute.
func Within(p, base string) bool { return paths.Within(p, base) }

// Depth is the number of components in a clean absolute path.
func Depth(p string) int { return paths.Depth(p) }

// Make turns the input into a plan. It fails on a path that is not clean and
// absolute, on a rule under /dev, /proc or /sys, on a rule that would need
// to mount below a file or a symlink, and (with Input.Lookup) on a mount
// point that is missing where it could only be made on the host.
//
// A bind travels with its parent directory: renaming a directory that holds
// a mount point succeeds and takes the mount along; only a mount point
// itself cannot be renamed, removed or replaced (EBUSY). So every directory
// strictly between a writable host tree (a writable bind, or a writable
// root) and a read-only or deny rule inside it, and every directory of
// Input.Pins with the directories above it, is pinned: bound writable onto
// itself. Each directory is pinned once, however many rules lie below it.
func Make(in Input) (*Plan, error) {
	root := in.Root
	if root == "" {
		root = "/"
	}
	plan := &Plan{Root: Op{Kind: OpBind, Path: "/", Source: root, ID: in.RootID, ReadOnly: true, Dir: true}}

	last := make(map[string]Rule, len(in.Rules))
	for _, r := range in.Rules {
		if err := checkRule(r); err != nil {
			return nil, err
		}
		if r.Path == "/" {
			if err := plan.rootRule(r, in.TmpfsSize); err != nil {
				return nil, err
			}
			delete(last, "/")
			continue
		}
		last[r.Path] = r
	}
	for _, l := range in.LinksToPin {
		if r, ok := linkPin(l, last, plan.Root); ok {
			last[l.Path] = r
		}
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

	ops, index, err := plan.layOut(rules, in)
	if err != nil {
		return nil, err
	}
	if covers := kernelCovers(ops, index, plan.Root, plan.Unchanged, in.KernelMounts); len(covers) > 0 {
		rules = append(rules, covers...)
		sortRules(rules)
		plan.Unchanged = nil
		if ops, index, err = plan.layOut(rules, in); err != nil {
			return nil, err
		}
	}
	if pins := pinsNeeded(ops, index, plan.Root, in.Pins); len(pins) > 0 {
		if in.Identify == nil {
			return nil, fmt.Errorf("pin %s: no way to identify the directory", pins[0])
		}
		rules = slices.Grow(rules, len(pins))
		for _, d := range pins {
			// The directory the host has there: a writable root that is not
			// the host's, or a bind of another directory, shows its own.
			src, _ := hostOf(ops, nearest(index, d), plan.Root, d)
			id, err := in.Identify(src)
			if err != nil {
				return nil, fmt.Errorf("pin %s: %w", src, err)
			}
			rules = append(rules, Rule{Path: d, Access: ReadWrite, Source: src, Dir: true, ID: id, pin: true})
		}
		// Pins are writable binds inside writable binds: laying the rules
		// out again puts them before what they hold and needs no more.
		sortRules(rules)
		plan.Unchanged = nil
		if ops, index, err = plan.layOut(rules, in); err != nil {
			return nil, err
		}
	}
	ops, err = addFiles(addLinks(ops, index, in.Links, rules), index, in.Files, in.Lookup != nil)
	if err != nil {
		return nil, err
	}
	if ops[0].Devices, err = devices(in.Devices); err != nil {
		return nil, err
	}
	for _, d := range ops[0].Devices {
		ops[0].Mountpoints = append(ops[0].Mountpoints, Mountpoint{Rel: d.Path})
	}
	if ops, err = plan.placeMountpoints(ops, index, in); err != nil {
		return nil, err
	}
	if in.ProtectProc {
		// For others the sandbox's own /proc is fully visible already (a
		// nested sandbox needs it), and a fresh procfs or sysfs gives
		// them nothing of root's.
		revealCovers(ops, &plan.Root, plan.Unchanged, in.KernelMounts)
	}
	linksLast(&plan.Root, ops)
	plan.Ops = ops
	return plan, nil
}

// sortRules orders rules parents first, as layOut wants them.
func sortRules(rules []Rule) {
	sort.SliceStable(rules, func(i, j int) bool {
		di, dj := Depth(rules[i].Path), Depth(rules[j].Path)
		if di != dj {
			return di < dj
		}
		return rules[i].Path < rules[j].Path
	})
}

// rootRule applies a rule for "/" to the root: read-only, writable, or an
// overlay of it.
func (plan *Plan) rootRule(r Rule, size uint64) error {
	if r.Source != "" && r.Source != plan.Root.Source {
		return fmt.Errorf("%s / from %s: another directory as the root is the plan's Root", r.Access, r.Source)
	}
	switch r.Access {
	case ReadOnly:
		plan.Root.ReadOnly = true
	case ReadWrite:
		plan.Root.ReadOnly = false
	case Overlay:
		plan.Root = Op{Kind: OpOverlay, Path: "/", Source: plan.Root.Source, ID: plan.Root.ID, Dir: true,
			Upper: r.Upper, UpperID: r.UpperID, Size: size}
	default:
		return fmt.Errorf("%s /: the root can only be read-only, writable or an overlay", r.Access)
	}
	return nil
}

// layOut turns rules sorted parents first into ops, after /dev, /proc and
// /sys. Directory and symlink rules stay as ops of their own kinds, out of
// the index, until placeMountpoints turns them into mount points.
func (plan *Plan) layOut(rules []Rule, in Input) ([]Op, map[string]int, error) {
	dev := Op{Kind: OpDev, Path: "/dev", Dir: true, Size: in.TmpfsSize}
	if in.Console {
		dev.Mountpoints = []Mountpoint{{Rel: "console", Link: "pts/0"}}
	}
	// Room for every rule at once: an Op is large, and a plan of
	// thousands grown by doubling is megabytes of copies.
	ops := make([]Op, 2, len(rules)+8)
	ops[0], ops[1] = dev, Op{Kind: OpProc, Path: "/proc", Dir: true, ReadOnly: in.ProtectProc}
	if in.HostProc {
		ops[1] = Op{Kind: OpHostProc, Path: "/proc", Source: "/proc", Dir: true, ReadOnly: true}
	}
	sys := Op{Kind: OpSys, Path: "/sys", Dir: true, ReadOnly: true}
	if in.HostSys {
		sys = Op{Kind: OpHostSys, Path: "/sys", Source: "/sys", Dir: true, ReadOnly: true}
	}
	ops = append(ops, sys)
	index := make(map[string]int, len(rules)+2)
	if in.ProtectProc {
		// Registered so that what hides their entries is placed in them,
		// not looked up on the host.
		index["/proc"], index["/sys"] = 1, 2
		ops = append(ops, hidden()...)
	}
	links := map[string]bool{}
	for _, r := range rules {
		if l := underLink(links, r.Path); l != "" {
			return nil, nil, &PlanError{Path: r.Path, Kind: r.Access.String(), Err: fmt.Errorf("%s is a symlink of the plan and cannot hold it", l)}
		}
		op := opFor(r)
		if (op.Kind == OpTmpfs && !op.ReadOnly) || op.Kind == OpOverlay {
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
				return nil, nil, &PlanError{Path: r.Path, Kind: r.Access.String(), Err: fmt.Errorf("%s is a file and cannot hold it", p.Path)}
			}
			if p.Kind == OpTmpfs {
				p.Mountpoints = append(p.Mountpoints, mountpointFor(op, strings.TrimPrefix(r.Path, p.Path+"/")))
			}
		}
		switch op.Kind {
		case opSymlink:
			links[r.Path] = true
		case opDirectory:
		default:
			index[r.Path] = len(ops)
		}
		ops = append(ops, op)
	}
	return ops, index, nil
}

// underLink returns the symlink of links that p lies below, or "".
func underLink(links map[string]bool, p string) string {
	if len(links) == 0 {
		return ""
	}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if links[d] {
			return d
		}
	}
	return ""
}

// mountpointFor is what must exist at rel for op: a symlink, a directory,
// or a file to mount on.
func mountpointFor(op Op, rel string) Mountpoint {
	if op.Kind == opSymlink {
		return Mountpoint{Rel: rel, Link: op.Target}
	}
	return Mountpoint{Rel: rel, Dir: op.Dir}
}

// linksLast orders every list of entries to make so that symlinks come
// after every directory and file: a link made first could redirect the
// creation of a later entry.
func linksLast(root *Op, ops []Op) {
	order := func(mps []Mountpoint) {
		sort.SliceStable(mps, func(i, j int) bool { return mps[i].Link == "" && mps[j].Link != "" })
	}
	order(root.Mirror)
	order(root.Mountpoints)
	for i := range ops {
		order(ops[i].Mountpoints)
		order(ops[i].Mirror)
	}
}

// pinsNeeded lists, parents first, the directories that hold a read-only
// or deny op (or a directory of extra) inside a writable host tree and are
// not mount points already. Walking up from each op stops at a directory
// already listed, so each is visited once.
func pinsNeeded(ops []Op, index map[string]int, root Op, extra []string) []string {
	seen := map[string]bool{}
	var out []string
	hold := func(p string, self bool) {
		top := "/"
		if a := nearest(index, p); a >= 0 {
			if ops[a].Kind != OpBind || ops[a].ReadOnly {
				return // read-only, or not the host's: nothing there reaches the host
			}
			top = ops[a].Path
		} else if root.Kind != OpBind || root.ReadOnly {
			return
		}
		d := p
		if !self {
			d = path.Dir(p)
		}
		for ; d != top && d != "/" && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, op := range ops {
		if op.Kind == OpDev || op.Kind == OpProc || op.Kind == OpHostProc || op.Kind == OpSys || op.Kind == OpHostSys {
			continue
		}
		if op.ReadOnly || op.Kind == OpEmptyFile {
			hold(op.Path, false)
		}
	}
	for _, p := range extra {
		if p == "/" || !path.IsAbs(p) || path.Clean(p) != p {
			continue
		}
		_, isOp := index[p]
		hold(p, !isOp)
	}
	sort.Slice(out, func(i, j int) bool {
		if di, dj := Depth(out[i]), Depth(out[j]); di != dj {
			return di < dj
		}
		return out[i] < out[j]
	})
	return out
}

// addFiles appends an OpFile for each file, after everything else so it
// lies over what is there. In a tmpfs of the plan its mount point is made
// (in a denied directory's only for a Required file); elsewhere, with
// lookup, placeMountpoints decides, and without it a missing path leaves
// the file out.
func addFiles(ops []Op, index map[string]int, files []File, lookup bool) ([]Op, error) {
	// A file the caller asked for (Required) over one of nsrun's own at
	// the same path: the caller's.
	required := map[string]bool{}
	for _, f := range files {
		if f.Required {
			required[f.Path] = true
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		if !f.Required && required[f.Path] {
			continue
		}
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == "/" {
			return nil, fmt.Errorf("file %q: not a clean absolute path", f.Path)
		}
		if res := Reserved(f.Path); res != "" {
			return nil, fmt.Errorf("file %s: %s is built by nsrun", f.Path, res)
		}
		if len(f.Content) > maxFile {
			return nil, fmt.Errorf("file %s: over %d bytes", f.Path, maxFile)
		}
		if seen[f.Path] {
			return nil, fmt.Errorf("file %s: given twice", f.Path)
		}
		seen[f.Path] = true
		op := Op{Kind: OpFile, Path: f.Path, ReadOnly: true, Content: f.Content, Optional: !f.Required}
		if i, ok := index[f.Path]; ok && ops[i].Dir {
			return nil, fmt.Errorf("file %s: a directory rule is there", f.Path)
		}
		inTmpfs := false
		if parent := nearest(index, f.Path); parent >= 0 {
			p := &ops[parent]
			if !p.Dir {
				return nil, fmt.Errorf("file %s: %s is a file and cannot hold it", f.Path, p.Path)
			}
			if p.Kind == OpTmpfs && (!p.ReadOnly || f.Required) {
				p.Mountpoints = append(p.Mountpoints, Mountpoint{Rel: strings.TrimPrefix(f.Path, p.Path+"/")})
				// Where the tmpfs may be left out (its mount point missing
				// inside), the file goes with it.
				op.Optional, inTmpfs = p.Optional && !f.Required, true
			}
		}
		if lookup && op.Optional && !inTmpfs {
			// placeMountpoints decides, and keeps the file where its path
			// exists.
			op.Optional = false
			op.Mode = leftOutIfMissing
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// leftOutIfMissing marks, in Op.Mode of an OpFile, a file that
// placeMountpoints leaves out rather than fail for where its mount point
// cannot be made.
const leftOutIfMissing = 1

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

// redundant reports whether op, a read-only bind, would show exactly what
// its nearest ancestor already shows there: the same host tree,
// read-only, nosuid, nodev. Such a bind is left out; a sandbox with many
// read-only rules then costs no more to build.
func redundant(op, root Op, ops []Op, parent int) bool {
	if op.Kind != OpBind || !op.ReadOnly {
		return false
	}
	p := root
	if parent >= 0 {
		p = ops[parent]
	}
	if p.Kind != OpBind || !p.ReadOnly {
		return false
	}
	host, _ := hostOf(ops, parent, root, op.Path)
	return host == op.Source
}

func checkRule(r Rule) error {
	if !path.IsAbs(r.Path) || path.Clean(r.Path) != r.Path {
		return fmt.Errorf("%s %q: not a clean absolute path", r.Access, r.Path)
	}
	if r.Source != "" && (!path.IsAbs(r.Source) || path.Clean(r.Source) != r.Source) {
		return fmt.Errorf("%s %s from %q: not a clean absolute path", r.Access, r.Path, r.Source)
	}
	if res := Reserved(r.Path); res != "" {
		return fmt.Errorf("%s %s: %s is built by nsrun and cannot be changed by a rule", r.Access, r.Path, res)
	}
	switch r.Access {
	case ReadOnly, ReadWrite, Deny:
	case Tmpfs, Overlay, Directory:
		if !r.Dir {
			return fmt.Errorf("%s %s: not a directory", r.Access, r.Path)
		}
	case Symlink:
		if r.Target == "" {
			return fmt.Errorf("symlink %s: no target", r.Path)
		}
	case Copy, Device, BlockDevice:
		return fmt.Errorf("%s %s: given as Input.Files or Input.Devices, not as a rule", r.Access, r.Path)
	default:
		return fmt.Errorf("%s: unknown access %d", r.Path, int(r.Access))
	}
	if r.Source != "" && r.Access != ReadOnly && r.Access != ReadWrite && r.Access != Overlay {
		return fmt.Errorf("%s %s: only binds and overlays show a host path", r.Access, r.Path)
	}
	return nil
}

// linkPin is the rule that pins the link l, if it lies where the sandbox
// writes to the host: its nearest rule is a writable bind, or no rule is
// above it and the root is writable. A link is a leaf: no rule lies below
// it.
func linkPin(l Link, rules map[string]Rule, root Op) (Rule, bool) {
	if l.Path == "/" || !path.IsAbs(l.Path) || path.Clean(l.Path) != l.Path || l.ID == (Identity{}) {
		return Rule{}, false
	}
	if _, taken := rules[l.Path]; taken {
		return Rule{}, false
	}
	writable := root.Kind == OpBind && !root.ReadOnly
	for d := path.Dir(l.Path); d != "/"; d = path.Dir(d) {
		if r, ok := rules[d]; ok {
			writable = r.Access == ReadWrite
			break
		}
	}
	return Rule{Path: l.Path, Access: ReadOnly, ID: l.ID, link: true}, writable
}

func opFor(r Rule) Op {
	op := Op{Path: r.Path, Dir: r.Dir, Optional: r.Optional, Pin: r.pin, Hidden: r.hidden}
	src := r.Source
	if src == "" {
		src = r.Path
	}
	if r.link {
		op.Kind, op.Source, op.ID, op.ReadOnly = OpPinLink, r.Path, r.ID, true
		return op
	}
	switch r.Access {
	case ReadOnly, ReadWrite:
		op.Kind, op.Source, op.ID, op.ReadOnly = OpBind, src, r.ID, r.Access == ReadOnly
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
	case Overlay:
		op.Kind, op.Source, op.ID, op.Upper, op.UpperID = OpOverlay, src, r.ID, r.Upper, r.UpperID
	case Directory:
		op.Kind = opDirectory
	case Symlink:
		op.Kind, op.Target = opSymlink, r.Target
	}
	return op
}

// hostOf is the host path the op at parent (-1: the root) shows at p, a
// path at or below it; ok is false where that op shows a tree of the
// plan's own (a tmpfs, /dev, a file).
func hostOf(ops []Op, parent int, root Op, p string) (string, bool) {
	o := root
	if parent >= 0 {
		o = ops[parent]
	}
	if o.Kind != OpBind && o.Kind != OpOverlay {
		return "", false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, o.Path), "/")
	return path.Join(o.Source, rel), true
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
