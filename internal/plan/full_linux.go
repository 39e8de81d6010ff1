package plan

import (
	"errors"
	"os"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/paths"
	"github.com/nsrun/nsrun/mounts"
)

// FullParts is what of a sandbox with namespaces the root package still
// plans: its filtered network and its kept changes (until their planning
// moves here).
type FullParts interface {
	// CheckNetwork refuses network settings that do not go together.
	CheckNetwork() error
	// NetFiles are the sandbox's own resolver and hosts files where nsrun
	// serves its network inside, at the paths they lead to in root.
	NetFiles(root string) []mounts.File
	// KeepChanges gives each overlay of in its kept layer: the directory
	// they are kept in and its lock, "" and nil when none are kept.
	KeepChanges(root string, in *mounts.Input) (string, *os.File, error)
	// RecordMade tells the kept directory which entries of its layers
	// are mount points the plan makes.
	RecordMade(kept string, mp *mounts.Plan) error
	// PlanNetwork plans the network nsrun serves inside (it listens on
	// the host for published ports): whether it serves one.
	PlanNetwork() (served bool, err error)
	// NetEnv is env with the proxy variables the served network gives.
	NetEnv(env []string) []string
	// LoopbackAddrs are the addresses the init gives lo for it.
	LoopbackAddrs() []string
}

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
	Parts FullParts
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
}

// Full plans a sandbox with namespaces: its mounts over in.Root, its
// Landlock and seccomp layers, its network and what its report says.
func Full(r *Request, in FullInput, warn, logf func(string, ...any)) (*FullPlan, error) {
	mi := mounts.Input{Root: in.Root, RootID: Identity(in.RootInfo), ProtectProc: os.Getuid() == 0, TmpfsSize: r.TmpfsSize,
		HostProc: r.HostProc, HostSys: r.HostSys || r.Layers.HostNet, Console: in.Facts.Console, Identify: DirIdentity, Pins: in.Pins}
	mi.Lookup = LookupHost
	if err := in.Parts.CheckNetwork(); err != nil {
		return nil, err
	}
	mi.Files = in.Parts.NetFiles(in.Root)
	for _, rl := range in.Rules {
		if err := AddRule(&mi, rl, in.Root); err != nil {
			return nil, err
		}
	}
	kept, lock, err := in.Parts.KeepChanges(in.Root, &mi)
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
		if err := in.Parts.RecordMade(kept, mp); err != nil {
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
	served, err := in.Parts.PlanNetwork()
	if err != nil {
		return nil, err
	}
	fp.Spec = launch.Spec{
		Plan:     mp,
		Env:      FixTmpdir(in.Parts.NetEnv(in.Env), in.Rules, warn),
		Dir:      dir,
		Hostname: r.Hostname,
		Loopback: !r.Layers.HostNet,
		Landlock: l.Landlock,
		Seccomp:  l.Seccomp,
		Net:      served,
	}
	if served {
		fp.Spec.LoopbackAddrs = in.Parts.LoopbackAddrs()
	}
	fp.Namespaces, fp.FS = FullReport(mp, r.Layers.HostNet)
	fp.FS.Changes = kept
	built = true
	for _, rl := range in.Rules {
		if rl.Info != nil && rl.Info.Mode()&os.ModeSocket != 0 && rl.Access != mounts.Deny {
			fp.FS.Sockets = append(fp.FS.Sockets, rl.Canon)
		}
	}
	fp.Landlock, fp.Seccomp = l.LandlockReport, l.SeccompReport
	if r.HostProc {
		fp.NotEnforced = append(fp.NotEnforced, HostProcNotEnforced)
	}
	return fp, nil
}

// fullMounts completes the mount plan's input (the passwd and group
// entries, the symlinks to keep) and makes the plan.
func fullMounts(r *Request, in FullInput, mi *mounts.Input, warn func(string, ...any)) (*mounts.Plan, error) {
	user, _ := getEnv(in.Env, "USER")
	home, _ := getEnv(in.Env, "HOME")
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
