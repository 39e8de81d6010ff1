package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/ns"
)

// prepared is a Cmd turned into what the kernel needs.
type prepared struct {
	spec   initSpec
	report Report
	tmpDir string // created for a Landlock-only sandbox; removed after it
}

// idMap is who the sandbox's user is inside, and who it is on the host.
type idMap struct {
	uid, gid         int
	hostUID, hostGID int
}

// policyIDs is the ids of p's sandbox: the caller's unless p sets others.
func policyIDs(p *Policy) (idMap, error) {
	ids := idMap{hostUID: os.Getuid(), hostGID: os.Getgid()}
	ids.uid, ids.gid = ids.hostUID, ids.hostGID
	if p.UID != nil {
		ids.uid = *p.UID
	}
	if p.GID != nil {
		ids.gid = *p.GID
	}
	if err := ns.CheckID(int64(ids.uid)); err != nil {
		return ids, &IDError{Kind: "uid", Err: err}
	}
	if err := ns.CheckID(int64(ids.gid)); err != nil {
		return ids, &IDError{Kind: "gid", Err: err}
	}
	return ids, nil
}

// cleanup removes what preparing created.
func (p *prepared) cleanup() {
	if p.tmpDir != "" {
		os.RemoveAll(p.tmpDir)
	}
}

var reservedPaths = []string{"/dev", "/proc"}

// privateHome is where a preset's HOME points inside the sandbox: a tmpfs of
// its own under the private /tmp, so caches work and nothing reaches the
// caller's home.
const privateHome = "/tmp/home"

// identity is the device and inode of a stat result, whichever of the two
// stat types it carries (os.Lstat's, or canonicalFast's).
func identity(info os.FileInfo) mounts.Identity {
	switch st := info.Sys().(type) {
	case *syscall.Stat_t:
		return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
	case *unix.Stat_t:
		return mounts.Identity{Dev: st.Dev, Ino: st.Ino}
	}
	return mounts.Identity{}
}

func (c *Cmd) prepare() (*prepared, error) {
	p := c.policy()
	if len(c.Args) == 0 || c.Args[0] == "" {
		return nil, &SetupError{Code: ExitSetup, Msg: "no command given"}
	}
	user, cwd, err := canonicalRules(p.Rules)
	if err != nil {
		return nil, err
	}
	for _, cr := range user {
		r := cr.Rule
		for _, res := range reservedPaths {
			if p.Isolation == IsolationFull && mounts.Within(cr.Canon, res) {
				return nil, &RuleError{Rule: r, Err: fmt.Errorf("%s is built by nsrun itself; rules cannot change it", res)}
			}
		}
		if abs := absPath(r.Path, cwd); abs != cr.Canon {
			if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				c.warnf("%s %s is a symlink to %s; the sandbox gets %s", r.Access, r.Path, cr.Canon, cr.Canon)
			}
		}
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	var prep *prepared
	if p.Isolation == IsolationLandlock {
		prep, err = c.prepareLandlockOnly(p, user, cwd, env)
	} else {
		prep, err = c.prepareFull(p, user, cwd, env)
	}
	if err != nil {
		return nil, err
	}
	prep.spec.Args, prep.spec.Verbose = c.Args, c.Log != nil
	prep.spec.Rlimits = withDefaultRlimits(p.Rlimits)
	prep.report.Limits = limitsReport(p, prep.spec.Rlimits)
	prep.report.Enforcement = enforcement(&prep.report)
	if p.Strict {
		if err := strictError(&prep.report, p.Isolation); err != nil {
			prep.cleanup()
			return nil, err
		}
	}
	return prep, nil
}

func (c *Cmd) prepareFull(p *Policy, user []canonRule, cwd string, env []string) (*prepared, error) {
	if p.AllowHostUnixSockets {
		return nil, &SetupError{Code: ExitSetup, Msg: "--allow-host-unix-sockets is for --isolation landlock: with namespaces, the host's unix sockets are out of reach through the private /run and --deny"}
	}
	root := "/"
	var rootInfo os.FileInfo
	var err error
	if p.Root != "" {
		root, rootInfo, err = canonical(p.Root, cwd)
		if err == nil && !rootInfo.IsDir() {
			err = fmt.Errorf("%s is %s, not a directory", root, fileKind(rootInfo.Mode()))
		}
		if err != nil {
			return nil, &RuleError{Rule: Rule{Path: p.Root}, Err: err}
		}
	} else if rootInfo, err = os.Stat("/"); err != nil {
		return nil, fmt.Errorf("stat /: %w", err)
	}
	if p.PrivateHome {
		env = withPrivateHome(env, privateHome)
	}
	rules, overruled := effective(append(ownRules(p, root), user...))

	in := mounts.Input{Root: root, RootID: identity(rootInfo), ProtectProc: os.Getuid() == 0, TmpfsSize: p.TmpfsSize}
	for _, r := range rules {
		mr := mounts.Rule{Path: r.Canon, Access: r.Access, Dir: r.Dir, Optional: r.internal && r.Access == Tmpfs && r.Canon != "/tmp"}
		if r.Access == ReadOnly || r.Access == ReadWrite {
			// Without the inode the init could not tell a swapped path
			// from the one checked: refuse rather than bind blind.
			if mr.ID = identity(r.info); mr.ID == (mounts.Identity{}) {
				return nil, &RuleError{Rule: r.Rule, Err: errors.New("cannot tell which file this is (no device and inode)")}
			}
		}
		if r.internal && r.Canon == "/tmp" {
			mr.Mode = 0o1777
		}
		in.Rules = append(in.Rules, mr)
	}
	if p.Root == "" {
		for _, r := range user {
			// A path with no symlink on the way is its own canonical form:
			// nothing to walk again.
			if abs := absPath(r.Path, cwd); abs != r.Canon {
				in.Links = append(in.Links, symlinksAlong(abs)...)
			}
		}
	}
	plan, err := mounts.Make(in)
	if err != nil {
		return nil, &SetupError{Code: ExitSetup, Msg: "plan mounts: " + err.Error()}
	}
	// Lets the tests run the pre-5.12 way of setting mount attributes on
	// kernels that no longer need it.
	plan.Remount = os.Getenv("NSRUN_FORCE_REMOUNT") == "1"

	// Start checked the ids before forking; checked again here so that a
	// bad id is reported after a bad path, as the options are read.
	if _, err := policyIDs(p); err != nil {
		return nil, err
	}
	prep := &prepared{}
	dir, err := c.workDir(root, rules, cwd)
	if err != nil {
		return nil, err
	}
	l, err := c.planLayers(p, fullGrants(plan), 0, 0, false)
	if err != nil {
		return nil, err
	}
	prep.spec = initSpec{
		Plan:     plan,
		Env:      c.fixTmpdir(env, rules),
		Dir:      dir,
		Hostname: p.Hostname,
		Loopback: p.Net != NetHost,
		Landlock: l.landlock,
		Seccomp:  l.seccomp,
	}
	prep.report = baseReport(plan, p.Net == NetHost)
	prep.report.Landlock, prep.report.Seccomp = l.lreport, l.sreport
	prep.report.Filesystem.Overruled = c.overruledReport(overruled)
	return prep, nil
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
		if err == nil && (mounts.Within(target, "/run") || mounts.Within(target, "/var/run")) {
			if fi, err := os.Lstat(target); err == nil && fi.Mode().IsRegular() {
				rules = append(rules, canonRule{Rule: Rule{Path: target, Access: ReadOnly, Source: SourceInternal}, Canon: target, info: fi, internal: true})
			}
		}
	}
	return rules
}

func baseReport(plan *mounts.Plan, hostNet bool) Report {
	r := Report{
		Version:    1,
		Backend:    "linux",
		Namespaces: NamespaceReport{User: true, Mount: true, PID: true, IPC: true, UTS: true, Net: !hostNet, Cgroup: true},
		Filesystem: FilesystemReport{Root: plan.Root.Source, RW: []string{}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}},
	}
	if !plan.Root.ReadOnly {
		r.Filesystem.RW = append(r.Filesystem.RW, "/")
	}
	r.Filesystem.RO = append(r.Filesystem.RO, plan.Unchanged...)
	for _, op := range plan.Ops {
		switch {
		case op.Kind == mounts.OpBind && op.ReadOnly:
			r.Filesystem.RO = append(r.Filesystem.RO, op.Path)
		case op.Kind == mounts.OpBind:
			r.Filesystem.RW = append(r.Filesystem.RW, op.Path)
		case op.Kind == mounts.OpEmptyFile, op.Kind == mounts.OpTmpfs && op.ReadOnly:
			r.Filesystem.Deny = append(r.Filesystem.Deny, op.Path)
		case op.Kind == mounts.OpTmpfs:
			r.Filesystem.Tmpfs = append(r.Filesystem.Tmpfs, op.Path)
		}
	}
	return r
}

// overruledReport lists the rules that did not take effect as written,
// and warns about each one a caller set.
func (c *Cmd) overruledReport(overruled []Overruled) []string {
	var out []string
	for _, o := range overruled {
		if o.Rule.Source == SourceInternal {
			continue // nsrun's own defaults give way by design
		}
		out = append(out, o.String())
		c.warnf("%s", o)
	}
	return out
}
