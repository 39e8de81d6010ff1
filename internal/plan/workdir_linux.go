package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// visible reports whether the host directory q shows inside at the same
// place with the same content.
func visible(root string, rules []Rule, q string) bool {
	r, ok := Cover(rules, q)
	if !ok || r.Canon == "/" && !r.Mapped() {
		// Only the root covers q: with a rule for "/" (writable, an
		// overlay) too, that root's tree decides.
		if root == "/" {
			return true
		}
		fi, err := os.Stat(filepath.Join(root, q))
		return err == nil && fi.IsDir()
	}
	return (r.Access == mounts.ReadOnly || r.Access == mounts.ReadWrite || r.Access == mounts.Overlay) && !r.Mapped()
}

// WorkDir is the payload's working directory: given (the caller's
// setting, relative to cwd), which must be a directory inside, or else
// the caller's cwd where the sandbox shows it, or else the first writable
// directory, or else "/" (logf says why).
func WorkDir(given, root string, rules []Rule, cwd string, logf func(string, ...any)) (string, error) {
	if given != "" {
		dir := paths.Abs(given, cwd)
		r, ok := Cover(rules, dir)
		switch {
		case ok && (r.Access == mounts.Tmpfs || r.Access == mounts.Deny || r.Access == mounts.Directory):
			if dir == r.Canon {
				return dir, nil
			}
			return "", dirError(given, fmt.Errorf("%s is inside %s %s, which starts empty", dir, r.Access, r.Canon))
		case ok && (r.Access == mounts.Symlink || r.Access == mounts.Copy || r.Access == mounts.Device || r.Access == mounts.BlockDevice):
			return "", dirError(given, fmt.Errorf("%s is %s %s inside, not a directory", dir, r.Access, r.Canon))
		}
		host := dir
		switch {
		case ok && (r.Canon != "/" || r.Mapped()):
			// The host directory the rule shows there.
			host = filepath.Join(r.HostPath(), strings.TrimPrefix(dir, r.Canon))
		case root != "/":
			host = filepath.Join(root, dir)
		}
		fi, err := os.Stat(host)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				for _, o := range rules {
					if o.Canon != dir && paths.Within(o.Canon, dir) {
						return dir, nil // made inside, as the mount point of a rule below it
					}
				}
				return "", dirError(given, errors.New("no such directory inside the sandbox"))
			}
			return "", dirError(given, err)
		}
		if !fi.IsDir() {
			return "", dirError(given, fmt.Errorf("is %s, not a directory", paths.FileKind(fi.Mode())))
		}
		return dir, nil
	}
	canon, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		canon = cwd
	}
	if err == nil && (visible(root, rules, canon) || madeInside(rules, canon)) {
		return canon, nil
	}
	why := "it is not there inside"
	if r, ok := Cover(rules, canon); ok {
		why = fmt.Sprintf("%s %s hides it", r.Access, r.Canon)
	}
	for _, r := range rules {
		if !r.Internal && r.Access == mounts.ReadWrite && r.Dir {
			logf("working directory %s, the first writable directory, not yours (%s): %s", r.Canon, canon, why)
			return r.Canon, nil
		}
	}
	logf("working directory /, not yours (%s): %s, and no writable directory is given", canon, why)
	return "/", nil
}

// madeInside reports whether the directory q exists inside, although its
// host content is hidden, with a rule's path below it: the sandbox makes
// it as a mount point (`--rw a` from a directory under the private /tmp),
// and paths relative to it reach the rule.
func madeInside(rules []Rule, q string) bool {
	r, ok := Cover(rules, q)
	if !ok || r.Access != mounts.Tmpfs && r.Access != mounts.Deny || !r.Dir {
		return false
	}
	for _, o := range rules {
		if o.Canon != q && paths.Within(o.Canon, q) {
			return true
		}
	}
	return false
}

// FixTmpdir points TMPDIR at /tmp when it names a place the payload
// cannot write, so tools that honour it keep working.
func FixTmpdir(env []string, rules []Rule, warn func(string, ...any)) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			r, covered := Cover(rules, filepath.Clean(v))
			if !filepath.IsAbs(v) || !covered || (r.Access != mounts.ReadWrite && r.Access != mounts.Tmpfs) {
				warn("TMPDIR=%s is not writable inside; the payload gets TMPDIR=/tmp", v)
				kv = "TMPDIR=/tmp"
			}
		}
		out = append(out, kv)
	}
	return out
}

// dirError is a working directory that cannot be used.
func dirError(dir string, err error) error {
	return &Error{Kind: KindDir, Path: dir, Err: err}
}
