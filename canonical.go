package nsrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/mounts"
)

// canonRule is a rule whose path has been made absolute and canonical and
// checked against the kind of file it names.
type canonRule struct {
	Rule
	Canon    string
	Dir      bool
	info     fs.FileInfo
	internal bool // added by nsrun, not by the caller
}

// absPath makes p absolute against cwd without touching the filesystem.
func absPath(p, cwd string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// canonical resolves every symlink in p and stats the result.
func canonical(p, cwd string) (string, fs.FileInfo, error) {
	if p == "" {
		return "", nil, errors.New("empty path")
	}
	if strings.ContainsRune(p, 0) {
		return "", nil, errors.New("path contains a NUL byte")
	}
	abs := absPath(p, cwd)
	if canon, info, ok := canonicalFast(abs, p); ok {
		return canon, info, nil
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, errors.New("no such file or directory")
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", nil, fmt.Errorf("%s: %w", pe.Path, pe.Err)
		}
		return "", nil, err
	}
	info, err := os.Lstat(canon)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", canon, errors.Unwrap(err))
	}
	return canon, info, nil
}

// fileKind names a file type for error messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// canonicalRules resolves every rule against the current directory, which
// it returns too.
func canonicalRules(rules []Rule) ([]canonRule, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", fmt.Errorf("current directory: %w", err)
	}
	out := make([]canonRule, 0, len(rules))
	for _, r := range rules {
		cr, err := canonicalRule(r, cwd)
		if err != nil {
			return nil, "", err
		}
		out = append(out, cr)
	}
	return out, cwd, nil
}

func canonicalRule(r Rule, cwd string) (canonRule, error) {
	canon, info, err := canonical(r.Path, cwd)
	if err != nil {
		return canonRule{}, &RuleError{Rule: r, Err: err}
	}
	cr := canonRule{Rule: r, Canon: canon, Dir: info.IsDir(), info: info}
	at := func(format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if canon != absPath(r.Path, cwd) {
			msg = canon + " " + msg
		}
		return &RuleError{Rule: r, Err: errors.New(msg)}
	}
	switch r.Access {
	case ReadOnly, ReadWrite:
		if !info.IsDir() && !info.Mode().IsRegular() {
			return canonRule{}, at("is %s; only directories and regular files can be shown", fileKind(info.Mode()))
		}
	case Tmpfs:
		if !info.IsDir() {
			return canonRule{}, at("is %s, not a directory", fileKind(info.Mode()))
		}
	case Deny:
	default:
		return canonRule{}, &RuleError{Rule: r, Err: fmt.Errorf("unknown access %d", int(r.Access))}
	}
	return cr, nil
}

// cover returns the rule deciding canonical path p: the deepest covering
// rule, the later one for the same path. ok is false when only the root
// covers p.
func cover(rules []canonRule, p string) (r canonRule, ok bool) {
	depth := -1
	for _, c := range rules {
		if !mounts.Within(p, c.Canon) {
			continue
		}
		if d := mounts.Depth(c.Canon); d >= depth {
			r, ok, depth = c, true, d
		}
	}
	return r, ok
}

// effective applies Effective to canonical rules, keeping what each rule
// knows of its file.
func effective(rules []canonRule) ([]canonRule, []Overruled) {
	byPath := map[string][]canonRule{}
	plain := make([]Rule, 0, len(rules))
	for _, cr := range rules {
		byPath[cr.Canon] = append(byPath[cr.Canon], cr)
		plain = append(plain, Rule{Path: cr.Canon, Access: cr.Access, Source: cr.Source})
	}
	eff, overruled := Effective(plain)
	out := make([]canonRule, 0, len(eff))
	for _, r := range eff {
		cands := byPath[r.Path]
		cr := cands[0]
		for _, c := range cands {
			if c.Source == r.Source && c.Access == r.Access {
				cr = c
				break
			}
			if c.Source == r.Source {
				cr = c
			}
		}
		cr.Access = r.Access
		out = append(out, cr)
	}
	return out, overruled
}
