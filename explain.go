package nsrun

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/paths"
)

// Effect is a policy's rules as they take effect: canonical paths, nsrun's
// own rules included, precedence applied.
type Effect struct {
	Root      string
	Rules     []Rule
	Overruled []Overruled
	// Absent are the paths nsrun keeps absent (Policy.ProtectGit).
	Absent []string
}

// Explanation is the access a path gets, and the rule that decides it (nil
// when only the root covers it).
type Explanation struct {
	Path   string
	Access Access
	Rule   *Rule
}

// Explain says what access p gets and which rule decides, the answer to
// "why was this denied?". p is made absolute and canonical as far as it
// exists (the rules' paths are, and a path not made yet lies where its
// existing ancestor really is).
func (e *Effect) Explain(p string) Explanation {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	abs = paths.CanonicalAncestor(abs)
	a, by, ok := Resolve(e.Rules, abs)
	x := Explanation{Path: abs, Access: a}
	if ok {
		x.Rule = &by
	}
	return x
}

// Effect canonicalizes the policy's rules, adds nsrun's own and applies
// precedence, as a sandbox of this policy would.
func (p *Policy) Effect() (*Effect, error) { return p.effect(true) }

// effect is Effect, with or without this system's own rules.
func (p *Policy) effect(own bool) (*Effect, error) {
	rules, cwd, err := canonicalRules(p.Rules, p.Root != "")
	if err != nil {
		return nil, err
	}
	if err := checkConflicts(rules); err != nil {
		return nil, err
	}
	root := "/"
	if p.Root != "" {
		if root, _, err = paths.Canonical(p.Root, cwd); err != nil {
			return nil, &RuleError{Rule: Rule{Path: p.Root}, Err: err}
		}
	}
	if own {
		rules = append(ownRules(p, root), rules...)
		if cr, ok := homeRule(p, cwd); ok {
			rules = append(rules, cr)
		}
	}
	var absent []string
	if own && p.ProtectGit {
		git := protectGit(rules)
		rules = append(rules, git.rules...)
		for _, a := range git.absent {
			absent = append(absent, a.Path())
		}
	}
	eff, overruled := effective(rules)
	e := &Effect{Root: root, Overruled: overruled, Absent: absent}
	for _, cr := range eff {
		r := Rule{Path: cr.Canon, Access: cr.Access, Source: cr.Source, From: cr.From}
		if cr.mapped() {
			r.From = cr.host
		}
		e.Rules = append(e.Rules, r)
	}
	return e, nil
}

// homeRule is the rule that shows a persistent home, as the sandbox adds
// it: writable, at its canonical place. A home not made yet is shown where
// the sandbox will make it (its existing ancestor made canonical).
func homeRule(p *Policy, cwd string) (canonRule, bool) {
	if p.Home != HomePersistent {
		return canonRule{}, false
	}
	dir, err := persistentHomeDir(p.HomeDir, Homes(), cwd)
	if err != nil {
		return canonRule{}, false
	}
	r := Rule{Path: dir, Access: ReadWrite, Source: SourceInternal}
	cr, err := canonicalRule(r, cwd)
	if errors.Is(err, paths.ErrNoSuchPath) {
		cr, err = canonRule{Rule: r, Canon: paths.CanonicalAncestor(dir), Dir: true}, nil
	}
	if err != nil {
		return canonRule{}, false
	}
	cr.internal = true
	return cr, true
}

// persistentHomeDir is the directory a HomePersistent policy keeps HOME
// in, absolute: homeDir, else nsrun's own under the first of the caller's
// homes (Homes). The sandbox makes and uses it, and Effect shows it: one
// answer for both.
func persistentHomeDir(homeDir string, homes []string, cwd string) (string, error) {
	if homeDir == "" {
		if len(homes) == 0 {
			return "", errNoHomeForPersistent
		}
		homeDir = StateDir(homes[0], "default", "home")
	}
	return paths.Abs(homeDir, cwd), nil
}

var errNoHomeForPersistent = errs.New("%s: no home directory to keep it under (HOME is unset and the password database has none); give %s", errs.HomePersistent, errs.HomeDir.With("DIR"))

// privateHome is where HomePrivate points HOME inside the sandbox: a tmpfs
// of its own under the private /tmp, so caches work and nothing reaches
// the caller's home.
const privateHome = "/tmp/home"

// ownRules are the rules nsrun adds to a policy on Linux (none elsewhere):
// the private /tmp, /run and /var/run, the resolver file, a private home.
func ownRules(p *Policy, root string) []canonRule {
	if runtime.GOOS != "linux" || p.Isolation != IsolationFull {
		return nil
	}
	rules := internalRules(root, p.Net == NetHost)
	if p.Home == HomePrivate {
		rules = append(rules, canonRule{Rule: Rule{Path: privateHome, Access: Tmpfs, Source: SourceInternal}, Canon: privateHome, Dir: true, internal: true})
	}
	return rules
}

// internalRules are the paths nsrun itself replaces: a private /tmp, and
// /run (with /var/run when it is a real directory) so host daemons' sockets
// are out of reach. With the host network, the resolver file that
// /etc/resolv.conf points to under /run stays visible, read-only.
func internalRules(root string, hostNet bool) []canonRule {
	tmpfs := func(p string) canonRule {
		return canonRule{Rule: Rule{Path: p, Access: Tmpfs, Source: SourceInternal}, Canon: p, Dir: true, internal: true}
	}
	rules := []canonRule{tmpfs("/tmp"), tmpfs("/run")}
	if fi, err := os.Lstat(filepath.Join(root, "var/run")); err == nil && fi.IsDir() {
		rules = append(rules, tmpfs("/var/run"))
	}
	if hostNet && root == "/" {
		target, err := filepath.EvalSymlinks("/etc/resolv.conf")
		if err == nil && (paths.Within(target, "/run") || paths.Within(target, "/var/run")) {
			if fi, err := os.Lstat(target); err == nil && fi.Mode().IsRegular() {
				rules = append(rules, canonRule{Rule: Rule{Path: target, Access: ReadOnly, Source: SourceInternal}, Canon: target, info: fi, internal: true})
			}
		}
	}
	return rules
}
