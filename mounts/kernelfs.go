package mounts

import "path"

// KernelMount is a mount of a kernel filesystem in the host's tree (see
// Input.KernelMounts).
type KernelMount struct {
	Path string // the host mount point, absolute and clean
	Dir  bool   // the mount point is a directory (an nsfs one is a file)
	// Reveals marks a whole procfs or sysfs (Reveals). Built marks one
	// at or below /proc, /sys or /dev, listed for Reveals only: those
	// places are built afresh, and shown by a rule only as it names them.
	Reveals, Built bool
	// Unreachable marks one the host itself hides under a later mount
	// over a directory above it: no path leads to it, so nothing can be
	// mounted on the copies a tree carries of it (Op.Covers).
	Unreachable bool
}

// Reveals says whether a mount of filesystem type fstype with the
// filesystem's root at root is one the kernel counts as fully visible
// where nothing is mounted on or in it: where a mount namespace holds
// one, a user namespace made in it may mount a fresh one of its own (a
// procfs shows the root-only reports and /proc/sys; a sysfs /sys/firmware
// and the attributes root may write), with the flags of the one found.
// Every copy a cloned tree carries counts, even one a later mount hides
// from every path: Op.Covers mounts something on each.
func Reveals(fstype, root string) bool {
	return root == "/" && (fstype == "proc" || fstype == "sysfs")
}

// kernelFS are the filesystems whose mounts a shown host tree must not
// carry into the sandbox: a host procfs lists the host's processes and
// their command lines, a sysfs its network interfaces, the others
// kernel state, namespaces or message queues the sandbox was cut off
// from. Device filesystems are not among them: every mount of the view
// is nodev.
var kernelFS = map[string]bool{
	"binfmt_misc": true, "bpf": true, "cgroup": true, "cgroup2": true, "configfs": true,
	"debugfs": true, "efivarfs": true, "fusectl": true, "mqueue": true, "nsfs": true,
	"proc": true, "pstore": true, "securityfs": true, "sysfs": true, "tracefs": true,
}

// KernelFS says whether a mount of filesystem type fstype in a shown host
// tree is hidden (Input.KernelMounts).
func KernelFS(fstype string) bool { return kernelFS[fstype] }

// kernelCovers returns a deny rule for each place inside where a host tree
// the plan shows (the root, or a bind) carries one of kms along with its
// recursive bind, unless a rule of the plan's decides that place or a
// place above it. The places nsrun builds itself (/dev, /proc, /sys) are
// already fresh. A rule whose own source is such a mount, or that names its
// place (one of unchanged, the read-only rules that needed no mount), was
// asked for by name and is kept.
func kernelCovers(ops []Op, index map[string]int, root Op, unchanged []string, kms []KernelMount) []Rule {
	if len(kms) == 0 {
		return nil
	}
	var out []Rule
	seen := map[string]bool{}
	for _, p := range unchanged {
		seen[p] = true
	}
	shows := func(o Op, at int) {
		for _, km := range kms {
			r, ok := carries(o, km)
			if !ok || km.Built {
				continue
			}
			inside := path.Join(o.Path, r)
			if seen[inside] || Reserved(inside) != "" {
				continue
			}
			if _, ok := index[inside]; ok || nearest(index, inside) != at {
				continue
			}
			seen[inside] = true
			// Optional: a mount point the host has over-mounted since is
			// nowhere to be seen, and is left out.
			out = append(out, Rule{Path: inside, Access: Deny, Dir: km.Dir, Optional: true, hidden: true})
		}
	}
	shows(root, -1)
	for i, op := range ops {
		shows(op, i)
	}
	return out
}

// Reserved returns the place nsrun builds itself (/dev, /proc or /sys)
// that p is or lies below, or "".
func Reserved(p string) string {
	for _, res := range reserved {
		if Within(p, res) {
			return res
		}
	}
	return ""
}

// carries says whether o, the root or a bind, carries the host mount km
// below its source along with its recursive bind, and where in its tree
// (relative to its source). A bind of the mount itself is not carrying it:
// it was asked for by name.
func carries(o Op, km KernelMount) (string, bool) {
	if o.Kind != OpBind || km.Path == o.Source || !Within(km.Path, o.Source) {
		return "", false
	}
	return rel(km.Path, o.Source), true
}

// revealCovers sets Op.Covers on the root and every bind that carries a
// mount of kms that Reveals: the places in its tree to mount an empty
// directory on as soon as it is attached. What the plan mounts later may
// hide the copy from every path (a bind above it, a pin, a mirror, the
// view itself stacked on a bind of "/"), but the kernel still finds it
// when a user namespace of the payload's mounts a procfs or sysfs (with
// --allow-userns), and a copy with nothing mounted on it lets that mount
// through: for the host's root, a fresh procfs whose /proc/sys writes
// reach the host, with the copy's flags (a writable bind's are writable).
// A place a rule names without mounting (unchanged) shows what it was
// asked to, and nsrun's own /proc and /sys lie on the root's.
func revealCovers(ops []Op, root *Op, unchanged []string, kms []KernelMount) {
	named := map[string]bool{}
	for _, p := range unchanged {
		named[p] = true
	}
	add := func(o *Op, isRoot bool) {
		for _, km := range kms {
			r, ok := carries(*o, km)
			if !ok || !km.Reveals || !km.Dir {
				continue
			}
			inside := path.Join(o.Path, r)
			if named[inside] || (isRoot && (inside == "/proc" || inside == "/sys")) {
				continue
			}
			o.Covers = append(o.Covers, r)
		}
	}
	add(root, true)
	for i := range ops {
		add(&ops[i], false)
	}
}
