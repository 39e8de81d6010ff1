package plan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/mountinfo"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// AddRule adds an effective rule to the mount plan's input: a mount
// rule, a file of the plan's own (Copy, read now), or a device. A rule for
// "/" is about the root, root.
func AddRule(in *mounts.Input, r Rule, root string) error {
	if r.Canon == "/" && !r.Mapped() {
		r.Host = root
	}
	var id mounts.Identity
	if r.Info != nil {
		id = Identity(r.Info)
	}
	needID := func() error {
		// Without the inode the init could not tell a swapped path from
		// the one checked: refuse rather than bind blind.
		if id == (mounts.Identity{}) {
			return ruleError(r, errors.New("cannot tell which file this is (no device and inode)"))
		}
		return nil
	}
	switch r.Access {
	case mounts.Copy:
		content, err := readCopy(r.Host, id)
		if err != nil {
			return ruleError(r, err)
		}
		in.Files = append(in.Files, mounts.File{Path: r.Canon, Content: content, Required: true})
		return nil
	case mounts.Device, mounts.BlockDevice:
		if err := needID(); err != nil {
			return err
		}
		in.Devices = append(in.Devices, mounts.Node{Path: r.Canon, Source: r.Host, ID: id, Block: r.Access == mounts.BlockDevice})
		return nil
	}
	mr := mounts.Rule{Path: r.Canon, Access: r.Access, Dir: r.Dir, Optional: r.Internal && r.Access == mounts.Tmpfs && r.Canon != "/tmp"}
	switch r.Access {
	case mounts.ReadOnly, mounts.ReadWrite, mounts.Overlay:
		if err := needID(); err != nil {
			return err
		}
		mr.ID = id
		if r.Mapped() {
			mr.Source = r.Host
		}
	case mounts.Symlink:
		mr.Target = r.From
	}
	if r.Access == mounts.Overlay {
		if err := mountsBelow(r.Host); err != nil {
			return ruleError(r, err)
		}
	}
	if r.Internal && r.Canon == "/tmp" {
		mr.Mode = 0o1777
	}
	in.Rules = append(in.Rules, mr)
	return nil
}

// readCopy reads the host file of a Copy rule, which must still be the
// file checked (id), without following a symlink.
func readCopy(host string, id mounts.Identity) (string, error) {
	f, err := os.OpenFile(host, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if got := Identity(fi); got != id || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is now another file than the one checked", host)
	}
	if fi.Size() > MaxCopy {
		return "", fmt.Errorf("%s is %d bytes; a copy can be up to %d (bind it read-only instead)", host, fi.Size(), MaxCopy)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxCopy+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", host, err)
	}
	if len(b) > MaxCopy {
		return "", fmt.Errorf("%s grew past %d bytes while read", host, MaxCopy)
	}
	return string(b), nil
}

// LookupHost says what is at the host path p, following no symlink: the
// planner's view of the trees it shows.
func LookupHost(p string) (mounts.Found, error) {
	cur := ""
	parts := splitPath(p)
	for i, c := range parts {
		cur += "/" + c
		var st unix.Stat_t
		err := unix.Lstat(cur, &st)
		switch {
		case errors.Is(err, unix.ENOENT):
			return mounts.Found{Stop: cur}, nil
		case errors.Is(err, unix.ENOTDIR):
			return mounts.Found{Stop: filepath.Dir(cur), NotDir: true}, nil
		case err != nil:
			return mounts.Found{}, fmt.Errorf("look at %s: %w", cur, err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			target, err := os.Readlink(cur)
			if err != nil {
				return mounts.Found{}, fmt.Errorf("look at %s: %w", cur, err)
			}
			return mounts.Found{Stop: cur, Symlink: true, Target: target}, nil
		case unix.S_IFDIR:
		default:
			if i < len(parts)-1 {
				return mounts.Found{Stop: cur, NotDir: true}, nil
			}
			return mounts.Found{Exists: true}, nil
		}
	}
	return mounts.Found{Exists: true, Dir: true}, nil
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// mountsBelow refuses an overlay of a host directory with something
// mounted below it: from a user namespace the kernel takes no such lower
// layer, since the mounts hide what is under them there.
func mountsBelow(dir string) error {
	entries, err := mountinfo.Self()
	if err != nil {
		return err
	}
	var below []string
	seen := map[string]bool{}
	for _, e := range entries {
		if e.MountPoint != dir && paths.Within(e.MountPoint, dir) && !seen[e.MountPoint] {
			seen[e.MountPoint] = true
			below = append(below, e.MountPoint)
		}
	}
	if len(below) == 0 {
		return nil
	}
	more := ""
	if len(below) > 3 {
		more = fmt.Sprintf(" and %d more", len(below)-3)
		below = below[:3]
	}
	var hint error = errs.New("overlay the directories below it that you need, each on its own")
	if dir == "/" {
		hint = errs.New("%w (%s %s), or a root of its own (%s %s)", hint,
			errs.RuleOverlay.With("/etc"), errs.RuleOverlay.With("/usr"), errs.Root.With("DIR"), errs.RuleOverlay.With("/"))
	}
	return errs.New("%s%s %s mounted below it, and from a user namespace the kernel takes no lower layer with mounts below it (they hide what is under them): %w",
		strings.Join(below, ", "), more, map[bool]string{true: "is", false: "are"}[len(below) == 1], hint)
}

// ruleError is a rule that cannot be applied.
func ruleError(r Rule, err error) error {
	return &Error{Kind: KindRule, Rule: &r, Err: err}
}
