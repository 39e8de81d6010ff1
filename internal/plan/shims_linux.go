package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// shimTools are the version managers that regenerate a shims directory
// under their root (the variable that names it, else a directory in HOME)
// whenever a shell starts: pyenv says "cannot rehash" on every start where
// it cannot write there; rbenv and nodenv hide the same failure. What they
// write there is derived from the versions installed, so a copy that is
// discarded loses nothing.
var shimTools = []struct{ rootVar, inHome string }{
	{"PYENV_ROOT", ".pyenv"},
	{"RBENV_ROOT", ".rbenv"},
	{"NODENV_ROOT", ".nodenv"},
}

// ShimDirs is the shims directories of the version managers env leads to
// that exist on the host: under each tool's root variable and under its
// directory in HOME (a start-up file often sets the variable to the
// latter), canonical, each a real directory, in shimTools' order. It costs
// a few stat calls.
func ShimDirs(env []string) []string {
	home, _ := environ.Get(env, "HOME")
	var out []string
	for _, t := range shimTools {
		byVar, _ := environ.Get(env, t.rootVar)
		roots := []string{byVar}
		if home != "" {
			roots = append(roots, filepath.Join(home, t.inHome))
		}
		for _, root := range roots {
			if !filepath.IsAbs(root) {
				continue // unset, or relative to no directory the sandbox knows of
			}
			dir, err := filepath.EvalSymlinks(filepath.Join(root, "shims"))
			if err != nil {
				continue
			}
			if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
				continue
			}
			if !slices.Contains(out, dir) {
				out = append(out, dir)
			}
		}
	}
	return out
}

// ShimLayer says whether a shims directory dir (canonical) gets a layer
// of the sandbox's own, writable and discarded: only where the sandbox
// would otherwise show the host's directory read-only at its own place.
// A rule at or below dir is left to decide it (--ro on it keeps it
// read-only, --rw lets the tool write on the host); under a writable,
// hidden, tmpfs or mapped rule it is not the host's directory read-only.
// why says what kept it, "" when it gets the layer.
func ShimLayer(dir string, rules []Rule) (ok bool, why string) {
	for _, r := range rules {
		if paths.Within(r.Canon, dir) {
			return false, "a rule names " + r.Canon
		}
	}
	c, covered := Cover(rules, dir)
	switch {
	case !covered:
		return true, "" // the root, read-only
	case c.Mapped():
		return false, c.Canon + " shows another host path"
	case c.Access != mounts.ReadOnly:
		return false, c.Canon + " is " + c.Access.String()
	}
	return true, ""
}

// AddShimLayers adds to in an overlay, discarded with the sandbox, over
// each of dirs that ShimLayer picks and the kernel takes as a lower layer
// (nothing mounted below it, a file system of lowerFS), so that a shell's start-up can
// regenerate shims without error and without reaching the host. It says
// what it did, and why not, through logf.
func AddShimLayers(in *mounts.Input, dirs []string, rules []Rule, logf func(string, ...any)) {
	for _, dir := range dirs {
		ok, why := ShimLayer(dir, rules)
		if ok {
			if err := mountsBelow(dir); err != nil {
				ok, why = false, err.Error()
			}
		}
		if ok {
			ok, why = shimLower(dir)
		}
		var fi os.FileInfo
		if ok {
			var err error
			if fi, err = os.Lstat(dir); err != nil || !fi.IsDir() {
				ok, why = false, "it is no longer a directory"
			}
		}
		if !ok {
			logf("%s: no writable layer of the sandbox's own (%s)", dir, why)
			continue
		}
		in.Rules = append(in.Rules, mounts.Rule{Path: dir, Access: mounts.Overlay, Dir: true, ID: Identity(fi)})
		logf("%s: writable, in a layer of the sandbox's own that is discarded (a version manager's shims)", dir)
	}
}

// lowerFS are the file systems a shims directory may lie on to get its
// layer: those a user namespace's overlay takes as a lower layer on every
// kernel nsrun runs on. Elsewhere (an overlay already, which the kernel
// stacks two deep at most; FUSE, network file systems) the directory stays
// read-only rather than risk a sandbox that cannot be built for it.
var lowerFS = map[int64]string{
	unix.EXT4_SUPER_MAGIC:  "ext4",
	unix.XFS_SUPER_MAGIC:   "xfs",
	unix.BTRFS_SUPER_MAGIC: "btrfs",
	unix.TMPFS_MAGIC:       "tmpfs",
}

// shimLower says whether dir's file system is one of lowerFS.
func shimLower(dir string) (bool, string) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false, fmt.Sprintf("statfs: %v", err)
	}
	if _, ok := lowerFS[int64(st.Type)]; !ok {
		return false, fmt.Sprintf("it lies on a file system (type %#x) nsrun does not overlay by itself", st.Type)
	}
	return true, ""
}

// LogShimsReadOnly says, through logf, which of dirs a Landlock-only
// sandbox leaves read-only where the mode with namespaces gives them a
// layer of its own: without mounts there is none to give.
func LogShimsReadOnly(dirs []string, rules []Rule, logf func(string, ...any)) {
	for _, dir := range dirs {
		if ok, _ := ShimLayer(dir, rules); ok {
			logf("%s stays read-only: --isolation landlock has no mounts to give it a writable layer of its own (pyenv says it cannot rehash when a shell starts)", dir)
		}
	}
}
