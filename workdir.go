package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/paths"
)

// visible reports whether the host directory q shows inside at the same
// place with the same content.
func visible(root string, rules []canonRule, q string) bool {
	r, ok := cover(rules, q)
	if !ok || r.Canon == "/" && !r.mapped() {
		// Only the root covers q: with a rule for "/" (writable, an
		// overlay) too, that root's tree decides.
		if root == "/" {
			return true
		}
		fi, err := os.Stat(filepath.Join(root, q))
		return err == nil && fi.IsDir()
	}
	return (r.Access == ReadOnly || r.Access == ReadWrite || r.Access == Overlay) && !r.mapped()
}

func (c *Cmd) workDir(root string, rules []canonRule, cwd string) (string, error) {
	if c.Dir != "" {
		dir := paths.Abs(c.Dir, cwd)
		r, ok := cover(rules, dir)
		switch {
		case ok && (r.Access == Tmpfs || r.Access == Deny || r.Access == Directory):
			if dir == r.Canon {
				return dir, nil
			}
			return "", &DirError{Dir: c.Dir, Err: fmt.Errorf("%s is inside %s %s, which starts empty", dir, r.Access, r.Canon)}
		case ok && (r.Access == Symlink || r.Access == Copy || r.Access == Device || r.Access == BlockDevice):
			return "", &DirError{Dir: c.Dir, Err: fmt.Errorf("%s is %s %s inside, not a directory", dir, r.Access, r.Canon)}
		}
		host := dir
		switch {
		case ok && (r.Canon != "/" || r.mapped()):
			// The host directory the rule shows there.
			host = filepath.Join(r.hostPath(), strings.TrimPrefix(dir, r.Canon))
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
				return "", &DirError{Dir: c.Dir, Err: errors.New("no such directory inside the sandbox")}
			}
			return "", &DirError{Dir: c.Dir, Err: err}
		}
		if !fi.IsDir() {
			return "", &DirError{Dir: c.Dir, Err: fmt.Errorf("is %s, not a directory", paths.FileKind(fi.Mode()))}
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
	if r, ok := cover(rules, canon); ok {
		why = fmt.Sprintf("%s %s hides it", r.Access, r.Canon)
	}
	for _, r := range rules {
		if !r.internal && r.Access == ReadWrite && r.Dir {
			c.logf("working directory %s, the first writable directory, not yours (%s): %s", r.Canon, canon, why)
			return r.Canon, nil
		}
	}
	c.logf("working directory /, not yours (%s): %s, and no writable directory is given", canon, why)
	return "/", nil
}

// madeInside reports whether the directory q exists inside, although its
// host content is hidden, with a rule's path below it: the sandbox makes
// it as a mount point (`--rw a` from a directory under the private /tmp),
// and paths relative to it reach the rule.
func madeInside(rules []canonRule, q string) bool {
	r, ok := cover(rules, q)
	if !ok || r.Access != Tmpfs && r.Access != Deny || !r.Dir {
		return false
	}
	for _, o := range rules {
		if o.Canon != q && paths.Within(o.Canon, q) {
			return true
		}
	}
	return false
}

// fixTmpdir points TMPDIR at /tmp when it names a place the payload cannot
// write, so tools that honour it keep working.
func (c *Cmd) fixTmpdir(env []string, rules []canonRule) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			r, covered := cover(rules, filepath.Clean(v))
			if !filepath.IsAbs(v) || !covered || (r.Access != ReadWrite && r.Access != Tmpfs) {
				c.warnf("TMPDIR=%s is not writable inside; the payload gets TMPDIR=/tmp", v)
				kv = "TMPDIR=/tmp"
			}
		}
		out = append(out, kv)
	}
	return out
}
