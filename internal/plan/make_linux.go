package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun/cgroup"
	"github.com/nsrun/nsrun/internal/absent"
	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/seccomp"
)

// Result is a sandbox as planned: the init's spec, what the report says
// of it, and what the caller holds until the sandbox is gone.
type Result struct {
	Spec   launch.Spec
	Report Report
	Net    *Net   // the network nsrun serves, nil for none
	Tmp    string // a Landlock-only sandbox's private temporary directory
	// Kept is the directory the overlays' changes are kept in, "" for
	// none, and KeptLock its lock.
	Kept     string
	KeptLock *os.File
	// Filters are the seccomp programs the sandbox loads untraced, oldest
	// first: under --trace-denials the tracer refuses what they refuse.
	Filters []seccomp.Program
	Targets []absent.Target // the names kept absent, to watch
}

// Report is what planning says in the report, in the mirrors of the root
// package's parts.
type Report struct {
	Backend                    string // "linux" (namespaces) or "landlock"
	Namespaces                 NamespaceReport
	FS                         FilesystemReport
	Net                        NetReport
	Landlock                   LandlockReport
	Seccomp                    SeccompReport
	Compensations, NotEnforced []string
	Home                       string // the payload's HOME, where nsrun set it
	Limits                     map[string]string
	Enforcement                string // "full", "partial" or "none"
}

// Cleanup frees what planning took on the host: the kept layers' lock and
// the network's listeners. The private temporary directory is the
// caller's, who made it (Hooks.TmpDir).
func (res *Result) Cleanup() {
	if res.KeptLock != nil {
		res.KeptLock.Close()
	}
	res.Net.Cleanup()
}

// Make plans the sandbox r asks for, knowing f of the sandbox started
// before it: the home first, then the rules and environment the root
// package lowers over it (Hooks.Lower), then a sandbox with namespaces
// (Full) or a Landlock-only one (LandlockOnly), and last what holds for
// both. On an error what it took on the host is freed.
func Make(r *Request, f Facts) (*Result, error) {
	root, rootInfo := "/", os.FileInfo(nil)
	if !r.LandlockOnly {
		var err error
		if root, rootInfo, err = FullRoot(r); err != nil {
			return nil, err
		}
	}
	var home *Home
	if r.Home != HomeInherit {
		h, err := MakeHome(r.HomeMade)
		if err != nil {
			return nil, err
		}
		home = h
	}
	x, err := r.Hooks.Lower(home, root)
	if err != nil {
		return nil, err
	}
	r.Net.Warn, r.Net.Log, r.Net.Warnings = r.Hooks.Warn, r.Hooks.Log, r.Hooks.Warnings
	res := &Result{Targets: x.Targets}
	if r.LandlockOnly {
		err = res.landlockOnly(r, f, x)
	} else {
		err = res.full(r, f, x, root, rootInfo)
	}
	if err == nil {
		err = res.finish(r)
	}
	if err != nil {
		res.Cleanup()
		return nil, err
	}
	return res, nil
}

// FullRoot refuses what full isolation cannot give, and returns the root
// the sandbox is built over: "/" or r.Root, canonical, with its file info.
func FullRoot(r *Request) (string, os.FileInfo, error) {
	if r.AllowHostUnixSockets {
		return "", nil, &Error{Err: errs.New("%s is for %s: with namespaces, the host's unix sockets are out of reach through the private /run and %s", errs.AllowHostUnixSockets, errs.IsolationLandlock, errs.RuleDeny)}
	}
	if r.Root == "" {
		info, err := os.Stat("/")
		if err != nil {
			return "", nil, fmt.Errorf("stat /: %w", err)
		}
		return "/", info, nil
	}
	root, info, err := paths.Canonical(r.Root, r.Cwd)
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("%s is %s, not a directory", root, paths.FileKind(info.Mode()))
	}
	if err != nil {
		return "", nil, &Error{Kind: KindRule, Rule: &Rule{Path: r.Root}, Err: err}
	}
	return root, info, nil
}

// full plans a sandbox with namespaces over root.
func (res *Result) full(r *Request, f Facts, x *Lowered, root string, rootInfo os.FileInfo) error {
	env := payloadEnv(r, x, x.Env, r.PrivateHome, "full")
	fp, err := Full(r, FullInput{Root: root, RootInfo: rootInfo, Rules: x.Rules, User: x.User, Cwd: r.Cwd, Env: env,
		Facts: f, Pins: x.Pins, Links: x.Links, Shims: r.Shims}, r.Hooks.Warn, r.Hooks.Logf)
	if err != nil {
		return err
	}
	res.Spec, res.Net, res.Kept, res.KeptLock = fp.Spec, fp.Net, fp.Kept, fp.KeptLock
	res.Report = Report{Backend: "linux", Namespaces: fp.Namespaces, FS: fp.FS, Landlock: fp.Landlock, Seccomp: fp.Seccomp, NotEnforced: fp.NotEnforced}
	res.planned(r, x)
	return nil
}

// landlockOnly plans a sandbox of Landlock and seccomp alone.
func (res *Result) landlockOnly(r *Request, f Facts, x *Lowered) error {
	in := LandlockOnlyInput{Rules: x.Rules, Cwd: r.Cwd, Env: x.Env, Facts: f, Absent: x.Absent, Links: x.Links, Held: x.Held, Shims: r.Shims,
		// The sandbox has no tmpfs of its own.
		TmpDir: func() (string, error) {
			t, err := r.Hooks.TmpDir()
			res.Tmp = t
			return t, err
		},
	}
	lo, err := LandlockOnly(r, in, r.Hooks.Warn, r.Hooks.Logf)
	if err != nil {
		return err
	}
	res.Net, res.Spec = lo.Net, lo.Spec
	res.Report = Report{Backend: "landlock", FS: lo.FS, Landlock: lo.Landlock, Seccomp: lo.Seccomp, Compensations: lo.Compensations, NotEnforced: lo.NotEnforced}
	res.planned(r, x)
	if lo.Warning != "" {
		r.Hooks.Warn("%s", lo.Warning)
	}
	home := filepath.Join(lo.Tmp, "home")
	if r.Home == HomePrivate {
		if err := os.Mkdir(home, 0o700); err != nil {
			return fmt.Errorf("private home: %w", err)
		}
	}
	res.Spec.Env = payloadEnv(r, x, lo.Spec.Env, home, "landlock")
	return nil
}

// planned adds to the report the rules that did not take effect as
// written, saying each one, and the network's part.
func (res *Result) planned(r *Request, x *Lowered) {
	res.Report.FS.Overruled = x.Overruled
	for _, o := range x.Overruled {
		r.Hooks.Warn("%s", o)
	}
	if res.Net != nil {
		res.Report.Net = res.Net.Report
	}
}

// finish completes what holds for both kinds of sandbox: the payload's
// PWD, the filters under --trace-denials, the command and its limits, and
// the report's word on enforcement (refused under Strict unless full).
func (res *Result) finish(r *Request) error {
	// PWD names the payload's working directory, over any the caller's
	// environment has: programs (a shell, make) trust it as the name of
	// their own, and edits of the environment cannot take it away.
	res.Spec.Env = environ.Set(res.Spec.Env, "PWD", res.Spec.Dir)
	if r.TraceDenials {
		var err error
		if res.Filters, err = TracedFilters(&res.Spec); err != nil {
			return err
		}
	}
	if h, ok := environ.Get(res.Spec.Env, "HOME"); ok && r.Home != HomeInherit {
		res.Report.Home = h
	}
	res.Spec.Args, res.Spec.Verbose, res.Spec.Rlimits = r.Args, r.Verbose, r.Rlimits
	res.Report.Limits = limitsReport(r)
	res.Report.Enforcement = enforcement(&res.Report, r.Layers.HostNet)
	if r.Strict {
		return strictError(&res.Report, r.LandlockOnly)
	}
	return nil
}

// payloadEnv is env after the policy's home (private: privateDir) and with
// NSRUN_SANDBOX saying which kind of sandbox the payload is in.
func payloadEnv(r *Request, x *Lowered, env []string, privateDir, kind string) []string {
	switch r.Home {
	case HomePrivate:
		env = HomeEnv(env, privateDir, x.Identity, r.Hooks.Keep)
	case HomePersistent:
		env = HomeEnv(env, x.HomeDir, x.Identity, r.Hooks.Keep)
	}
	return environ.Set(env, "NSRUN_SANDBOX", kind)
}

// rlimitInfinity is an rlimit's "unlimited".
const rlimitInfinity = ^uint64(0)

// limitsReport describes the limits for the report.
func limitsReport(r *Request) map[string]string {
	m := map[string]string{}
	show := func(v uint64) string {
		if v == rlimitInfinity {
			return "unlimited"
		}
		return fmt.Sprint(v)
	}
	for _, rl := range r.Rlimits {
		m[rl.Name] = show(rl.Soft) + ":" + show(rl.Hard)
	}
	if r.TmpfsSize > 0 {
		m["tmpfs_size"] = fmt.Sprint(r.TmpfsSize)
	}
	files, _ := cgroup.Files(r.Limits)
	for _, k := range []string{"memory.max", "pids.max", "cpu.max"} {
		if v, ok := files[k]; ok {
			m[k] = v
		}
	}
	return m
}

// enforcement is the report's overall word on the layers. The host's
// network, asked for, is no layer missing.
func enforcement(r *Report, hostNet bool) string {
	ns := r.Namespaces
	if ns.User && ns.Mount && ns.PID && ns.IPC && ns.UTS && (ns.Net || hostNet) && ns.Cgroup &&
		r.Landlock.Status == "full" && r.Seccomp.Status == "full" && r.FS.Proc != "host" {
		return "full"
	}
	if !ns.User && r.Landlock.Status != "full" && r.Landlock.Status != "partial" {
		return "none"
	}
	return "partial"
}

// strictError lists what keeps a sandbox from being fully enforced.
func strictError(r *Report, landlockOnly bool) error {
	var missing []string // formats, one per thing missing
	args := []any{errs.Strict}
	if landlockOnly {
		missing, args = append(missing, "namespaces (%s)"), append(args, errs.IsolationLandlock)
	} else if r.FS.Proc == "host" {
		missing, args = append(missing, "a private /proc (%s)"), append(args, errs.ProcHost)
	}
	if r.Landlock.Status != "full" {
		what := r.Landlock.Status
		if len(r.Landlock.Dropped) > 0 {
			what = strings.Join(r.Landlock.Dropped, ", ")
		}
		missing, args = append(missing, "landlock: %s"), append(args, what)
	}
	if r.Seccomp.Status != "full" {
		what := r.Seccomp.Status
		if r.Seccomp.Reason != "" {
			what += " (" + r.Seccomp.Reason + ")"
		}
		missing, args = append(missing, "seccomp: %s"), append(args, what)
	}
	if len(missing) == 0 {
		return nil
	}
	return &Error{Err: errs.New("%s: not fully enforced: "+strings.Join(missing, "; "), args...)}
}
