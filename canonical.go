package nsrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/paths"
)

// canonRule is a rule whose path has been made absolute and canonical and
// checked against the kind of file it names. Canon is where it is inside;
// host is the canonical host path it shows (Canon itself for a rule of
// the same place, "" for a directory or symlink of the sandbox's own) and
// info that file's.
type canonRule struct {
	Rule
	Canon    string
	host     string
	Dir      bool
	info     fs.FileInfo
	internal bool // added by nsrun, not by the caller
}

// mapped reports whether the rule shows a host path at another place.
func (cr canonRule) mapped() bool { return cr.host != "" && cr.host != cr.Canon }

// hostPath is the host path the rule shows at Canon: nsrun's own rules
// show their own place.
func (cr canonRule) hostPath() string {
	if cr.host == "" {
		return cr.Canon
	}
	return cr.host
}

// canonicalRules resolves every rule against the current directory, which
// it returns too. otherRoot says the sandbox's root is not the host's:
// a tmpfs then names a place inside, never resolved on the host.
func canonicalRules(rules []Rule, otherRoot bool) ([]canonRule, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", fmt.Errorf("current directory: %w", err)
	}
	out := make([]canonRule, 0, len(rules))
	var res paths.Resolver
	defer res.Close()
	for _, r := range rules {
		cr, err := canonicalRuleBy(&res, r, cwd)
		if r.Access == Tmpfs && r.From == "" && (otherRoot || errors.Is(err, paths.ErrNoSuchPath)) {
			// A tmpfs shows nothing of the host's: where the host has no
			// such path, or the root is another tree, the path is a place
			// inside, made there if the tree lacks it.
			p := filepath.Clean(paths.Abs(r.Path, cwd))
			cr, err = canonRule{Rule: r, Canon: p, Dir: true}, nil
		}
		if err != nil {
			return nil, "", err
		}
		out = append(out, cr)
	}
	return out, cwd, nil
}

func canonicalRule(r Rule, cwd string) (canonRule, error) {
	var res paths.Resolver
	defer res.Close()
	return canonicalRuleBy(&res, r, cwd)
}

// canonicalRuleBy is canonicalRule resolving with res (a run of rules
// shares one).
func canonicalRuleBy(res *paths.Resolver, r Rule, cwd string) (canonRule, error) {
	switch r.Access {
	case Directory, Symlink:
		return placeRule(r)
	case ReadOnly, ReadWrite, Deny, Tmpfs, Overlay, Copy, Device, BlockDevice:
	default:
		return canonRule{}, &RuleError{Rule: r, Err: fmt.Errorf("unknown access %d", int(r.Access))}
	}
	hostPath := r.Path
	if r.From != "" {
		hostPath = r.From
		switch r.Access {
		case Deny, Tmpfs, BlockDevice:
			return canonRule{}, &RuleError{Rule: r, Err: fmt.Errorf("%s shows nothing from another host path (from %s)", r.Access, r.From)}
		}
	} else if r.Access == Copy {
		return canonRule{}, &RuleError{Rule: r, Err: errors.New("a copy needs the host file to copy (From)")}
	}
	canon, info, err := res.Canonical(hostPath, cwd)
	if err != nil {
		if r.From != "" {
			err = fmt.Errorf("%s: %w", r.From, err)
		}
		return canonRule{}, &RuleError{Rule: r, Err: err}
	}
	dest := canon
	if r.From != "" {
		if dest, err = insidePath(r.Path); err != nil {
			return canonRule{}, &RuleError{Rule: r, Err: err}
		}
	}
	cr := canonRule{Rule: r, Canon: dest, host: canon, Dir: info.IsDir(), info: info}
	// What each access takes of a host file's kind is internal/paths'.
	if why := paths.KindRefusal(r.Access.String(), canon, info.Mode(), string(errs.RuleBlockDevice)); why != "" {
		if canon != paths.Abs(hostPath, cwd) {
			why = canon + " " + why
		}
		if r.From != "" {
			why = r.From + ": " + why
		}
		return canonRule{}, &RuleError{Rule: r, Err: errors.New(why)}
	}
	if r.Access == Device || r.Access == BlockDevice {
		if !paths.Within(cr.Canon, "/dev") || cr.Canon == "/dev" {
			return canonRule{}, &RuleError{Rule: r, Err: fmt.Errorf("%s is not under /dev: devices live in the sandbox's /dev", cr.Canon)}
		}
	}
	return cr, nil
}

// placeRule checks a rule that names a place inside alone: a directory or
// a symlink of the sandbox's own.
func placeRule(r Rule) (canonRule, error) {
	dest, err := insidePath(r.Path)
	if err != nil {
		return canonRule{}, &RuleError{Rule: r, Err: err}
	}
	if r.Access == Symlink && r.From == "" {
		return canonRule{}, &RuleError{Rule: r, Err: errors.New("a symlink needs a target")}
	}
	if r.Access == Directory && r.From != "" {
		return canonRule{}, &RuleError{Rule: r, Err: errors.New("a directory shows nothing from the host")}
	}
	if strings.ContainsRune(r.From, 0) {
		return canonRule{}, &RuleError{Rule: r, Err: errors.New("the target contains a NUL byte")}
	}
	return canonRule{Rule: r, Canon: dest, Dir: r.Access == Directory}, nil
}

// insidePath checks a path inside the sandbox: absolute, without a NUL,
// and clean (".." and "." are taken away as the kernel would walk them in
// the sandbox, never against the host).
func insidePath(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not an absolute path (a place inside the sandbox must be)", p)
	}
	return filepath.Clean(p), nil
}

// conflict reports whether two rules of one source at one place would
// show different things there, which no precedence can settle: two host
// paths, or a copy, a device or a symlink and anything but the same again,
// or a directory and a file. Between a host path, a tmpfs and a deny the
// more restrictive rule wins, and a directory gives way to any other
// directory.
func conflict(a, b canonRule) bool {
	leaf := func(x canonRule) bool {
		return x.Access == Copy || x.Access == Device || x.Access == BlockDevice || x.Access == Symlink
	}
	shows := func(x canonRule) bool {
		return x.Access == ReadOnly || x.Access == ReadWrite || x.Access == Overlay
	}
	switch {
	case leaf(a) || leaf(b):
		return a.Access != b.Access || a.host != b.host || a.From != b.From
	case a.Access == Directory || b.Access == Directory:
		return !a.Dir || !b.Dir
	case shows(a) && shows(b):
		return a.hostPath() != b.hostPath()
	}
	return false
}

// checkConflicts refuses two rules of one source at one place that
// conflict (see conflict).
func checkConflicts(rules []canonRule) error {
	type key struct {
		path string
		rank int
	}
	seen := make(map[key][]canonRule, len(rules))
	for _, cr := range rules {
		k := key{cr.Canon, cr.Source.rank()}
		for _, o := range seen[k] {
			if conflict(o, cr) {
				return &RuleError{Rule: cr.Rule, Err: fmt.Errorf("%s is also given as %s: two different things at one place", cr.Canon, describeRule(o))}
			}
		}
		seen[k] = append(seen[k], cr)
	}
	return nil
}

// describeRule names a rule for messages: its access, place and source.
func describeRule(cr canonRule) string {
	s := cr.Access.String() + " " + cr.Canon
	if cr.From != "" {
		s += " from " + cr.From
	}
	return s
}

// cover returns the rule deciding canonical path p: the deepest covering
// rule, the later one for the same path. ok is false when only the root
// covers p.
func cover(rules []canonRule, p string) (r canonRule, ok bool) {
	return paths.Cover(rules, p, func(r canonRule) string { return r.Canon })
}

// effective applies Effective to canonical rules, keeping what each rule
// knows of its file.
func effective(rules []canonRule) ([]canonRule, []Overruled) {
	byPath := make(map[string][]canonRule, len(rules))
	plain := make([]Rule, 0, len(rules))
	for _, cr := range rules {
		byPath[cr.Canon] = append(byPath[cr.Canon], cr)
		from := cr.From
		if from != "" && cr.host != "" {
			from = cr.host
		}
		plain = append(plain, Rule{Path: cr.Canon, Access: cr.Access, Source: cr.Source, From: from})
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
