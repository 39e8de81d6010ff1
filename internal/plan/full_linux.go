package plan

import (
	"errors"
	"os"

	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// FullInput is what planning a sandbox with namespaces takes besides the
// Request.
type FullInput struct {
	Root     string      // the root it is built over, canonical
	RootInfo os.FileInfo // Root's
	// Rules are the effective rules, nsrun's own included; User the
	// caller's as given (with the home's and git's), whose symlinks
	// are kept as the host has them.
	Rules, User []Rule
	Cwd         string
	Env         []string // the payload's environment so far
	Facts       Facts
	// Pins are the directories the plan must hold in place; Links the
	// symlinks git's protection goes through, held too.
	Pins, Links []string
	// Shims are version managers' shims directories (ShimDirs) that get
	// a discarded writable layer where nothing else decides.
	Shims []string
}

// FullPlan is a sandbox with namespaces as planned.
type FullPlan struct {
	Spec        launch.Spec // all but Args, Verbose and Rlimits
	Namespaces  NamespaceReport
	FS          FilesystemReport
	Landlock    LandlockReport
	Seccomp     SeccompReport
	NotEnforced []string
	// Kept is the directory the overlays' changes are kept in, "" for
	// none, and KeptLock its lock, held until the sandbox is gone.
	Kept     string
	KeptLock *os.File
	// Net is the network nsrun serves inside, nil for none; its listeners
	// on the host are the caller's to close (Net.Cleanup).
	Net *Net
}

// Full plans a sandbox with namespaces: its mounts over in.Root, its
// Landlock and seccomp layers, its network (r.Net) and what its report
// says.
func Full(r *Request, in FullInput, warn, logf func(string, ...any)) (*FullPlan, error) {
	mi := mounts.Input{Root: in.Root, RootID: Identity(in.RootInfo), ProtectProc: os.Getuid() == 0, TmpfsSize: r.TmpfsSize,
		HostProc: r.HostProc, HostSys: r.HostSys || r.Layers.HostNet, Console: in.Facts.Console, Identify: DirIdentity, Pins: in.Pins, Lookup: LookupHost}
	if err := CheckNetwork(&r.Net); err != nil {
		return nil, err
	}
	km, err := KernelMounts()
	if err != nil {
		return nil, err
	}
	mi.KernelMounts = km
	if r.Net.Filtered || r.Net.Refused {
		mi.Files = NetFiles(in.Root, r.Hostname)
	}
	for _, rl := range in.Rules {
		if err := AddRule(&mi, rl, in.Root); err != nil {
			return nil, err
		}
	}
	kept, lock, err := KeepChanges(r.KeepChanges, in.Root, in.Rules, &mi)
	if err != nil {
		return nil, err
	}
	AddShimLayers(&mi, in.Shims, in.Rules, logf) // after KeepChanges: never kept
	built := false
	defer func() {
		if !built && lock != nil {
			lock.Close() // nothing will use what it keeps
		}
	}()
	mp, err := fullMounts(r, in, &mi, warn)
	if err != nil {
		return nil, err
	}
	if kept != "" {
		if err := RecordMade(kept, mp); err != nil {
			return nil, &Error{Err: err}
		}
	}
	// Lets the tests run the pre-5.12 way of setting mount attributes on
	// kernels that no longer need it.
	mp.Remount = os.Getenv("NSRUN_FORCE_REMOUNT") == "1"

	fp := &FullPlan{Kept: kept, KeptLock: lock}
	dir, err := WorkDir(r.Dir, in.Root, in.Rules, in.Cwd, logf)
	if err != nil {
		return nil, err
	}
	l, err := PlanLayers(&r.Layers, FullGrants(mp), LayerOptions{Limit: NetAsPolicy}, warn)
	if err != nil {
		return nil, err
	}
	if r.HostProc {
		if err := CheckHostProc(r.Layers.LandlockOff, l.LandlockReport); err != nil {
			return nil, err
		}
	}
	// Last, as it listens on the host for --publish.
	n, env, err := fullNetwork(r, in.Env)
	if err != nil {
		return nil, err
	}
	fp.Net = n
	fp.Spec = launch.Spec{
		Plan:     mp,
		Env:      FixTmpdir(env, in.Rules, warn),
		Dir:      dir,
		Hostname: r.Hostname,
		Loopback: !r.Layers.HostNet,
		Landlock: l.Landlock,
		Seccomp:  l.Seccomp,
		Net:      n != nil,
	}
	if n != nil {
		fp.Spec.LoopbackAddrs = n.LoopbackAddrs()
	}
	fp.Namespaces, fp.FS = FullReport(mp, r.Layers.HostNet)
	fp.FS.Changes, fp.FS.Sockets = kept, sockets(in.Rules)
	built = true
	fp.Landlock, fp.Seccomp = l.LandlockReport, l.SeccompReport
	if r.HostProc {
		fp.NotEnforced = append(fp.NotEnforced, HostProcNotEnforced)
	}
	return fp, nil
}

// sockets are the unix sockets of the host the rules show.
func sockets(rules []Rule) []string {
	var out []string
	for _, rl := range rules {
		if rl.Info != nil && rl.Info.Mode()&os.ModeSocket != 0 && rl.Access != mounts.Deny {
			out = append(out, rl.Canon)
		}
	}
	return out
}

// fullNetwork plans the network nsrun serves inside (nil for none) and
// points env's proxy variables at it.
func fullNetwork(r *Request, env []string) (*Net, []string, error) {
	n, err := PlanNetwork(&r.Net, false)
	if err != nil || n == nil {
		return nil, env, err
	}
	if r.Net.Filtered || !r.CallerEnv {
		// A refusing network's variables are advice, not the way out: an
		// environment the caller gave is left as it is.
		env = ProxyEnv(env, n.Proxy, r.CallerEnv)
	}
	return n, env, nil
}

// fullMounts completes the mount plan's input (the passwd and group
// entries, the symlinks to keep) and makes the plan.
func fullMounts(r *Request, in FullInput, mi *mounts.Input, warn func(string, ...any)) (*mounts.Plan, error) {
	user, _ := environ.Get(in.Env, "USER")
	home, _ := environ.Get(in.Env, "HOME")
	mi.Files = append(mi.Files, AccountFiles(r.IDs, r.SetIDs || r.Root != "", in.Root, in.Rules, user, home)...)
	for _, l := range in.Links {
		// Bound onto itself: the payload can neither remove, rename nor
		// replace it, and host git follows the same link later.
		fi, err := os.Lstat(l)
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			err = errors.New("no longer a symlink")
		}
		if err != nil {
			return nil, &Error{Op: "hold the symlink " + l + " git's protection goes through", Err: err}
		}
		target, err := os.Readlink(l)
		if err != nil {
			return nil, &Error{Op: "hold " + l, Err: err}
		}
		mi.LinksToPin = append(mi.LinksToPin, mounts.Link{Path: l, Target: target, ID: Identity(fi)})
	}
	if r.Root == "" {
		for _, rl := range in.User {
			// A path with no symlink on the way is its own canonical form:
			// nothing to walk again. A rule that shows another path, or
			// nothing of the host's, has no links of its own inside.
			if rl.From != "" || rl.Info == nil {
				continue
			}
			if abs := paths.Abs(rl.Path, in.Cwd); abs != rl.Canon {
				links := SymlinksAlong(abs)
				mi.Links = append(mi.Links, links...)
				if rl.Access == mounts.ReadOnly || rl.Access == mounts.Deny {
					// The host resolves the path through these links later:
					// in writable places they are pinned.
					mi.LinksToPin = append(mi.LinksToPin, links...)
				}
			}
		}
	}
	if mi.ProtectProc && r.Layers.AllowUserns {
		if err := unreachableShown(mi); err != nil {
			return nil, err
		}
	}
	mp, err := mounts.Make(*mi)
	if err != nil {
		var pe *mounts.PlanError
		if errors.As(err, &pe) {
			for _, rl := range in.Rules {
				if rl.Canon == pe.Path && !rl.Internal {
					return nil, ruleError(rl, pe.Err)
				}
			}
		}
		return nil, &Error{Op: "plan mounts", Err: err}
	}
	for _, f := range mp.LeftOut {
		warn("nsrun's own %s is not placed: the tree there has a symlink or a directory, or a writable host directory would hold it; the sandbox sees that tree's", f)
	}
	return mp, nil
}
