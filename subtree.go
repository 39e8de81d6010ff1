package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/nsrun/nsrun/internal/paths"
)

// Subtree is a rule for the directory name under root, for grants built
// from a root and an identifier (a tenant, a bot, a job). name must be one
// plain path segment: not empty, not "." or "..", without "/", NUL or
// control characters. The root's parent is canonicalized, but the root
// itself and root/name must be real directories, not symlinks, so a link
// planted at either place can never turn the grant into access elsewhere.
func Subtree(root, name string, access Access, source Source) (Rule, error) {
	if err := checkSegment(name); err != nil {
		return Rule{}, fmt.Errorf("subtree %q of %s: %w", name, root, err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Rule{}, fmt.Errorf("subtree root %s: %w", root, err)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return Rule{}, fmt.Errorf("subtree root %s: %w", root, err)
	}
	dir := filepath.Join(parent, filepath.Base(abs))
	for _, p := range []string{dir, filepath.Join(dir, name)} {
		fi, err := os.Lstat(p)
		if err != nil {
			return Rule{}, fmt.Errorf("subtree %s: %w", p, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return Rule{}, fmt.Errorf("subtree %s: is a symlink; a grant never follows one", p)
		}
		if !fi.IsDir() {
			return Rule{}, fmt.Errorf("subtree %s: is %s, not a directory", p, paths.FileKind(fi.Mode()))
		}
	}
	return Rule{Path: filepath.Join(dir, name), Access: access, Source: source}, nil
}

func checkSegment(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case name == "." || name == "..":
		return errors.New("not a plain name")
	case strings.ContainsRune(name, '/'):
		return errors.New("contains /")
	}
	for _, r := range name {
		if r == 0 || unicode.IsControl(r) {
			return errors.New("contains a control character")
		}
	}
	return nil
}
