package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/internal/bwrap"
	"github.com/nsrun/nsrun/internal/front"
)

// bwrapHost is what the lowering needs to know of the host; tests give
// their own.
type bwrapHost struct {
	// stat is stat(2) of a host path (symlinks followed, as bubblewrap's
	// realpath of a source follows them).
	stat func(p string) (fs.FileMode, error)
	// lstat is lstat(2): the path itself, a symlink not followed.
	lstat func(p string) (fs.FileMode, error)
	// realpath is realpath(3), as bubblewrap resolves the directories of
	// an overlay.
	realpath func(p string) (string, error)
	// fdPath is the host path an open descriptor names, refused when the
	// path no longer is the descriptor's file.
	fdPath func(fd int) (string, error)
	// readFD reads a descriptor to its end and closes it.
	readFD func(fd int) ([]byte, error)
	cwd    string
	env    []string
	// emptyRoot makes an empty directory to stand for a root bubblewrap
	// builds from nothing (no root, or --tmpfs /).
	emptyRoot func() (string, error)
	// maker changes the host as bubblewrap does through a writable bind;
	// nil changes nothing (and leaves such places to nsrun's plan).
	maker *hostMaker
	// noSeccomp says nsrun's seccomp layer is switched off
	// (NSRUN_BWRAP_SECCOMP=off), and noLandlock its Landlock layer.
	noSeccomp, noLandlock bool
	// uid is the caller's, and caps its effective capabilities (bit N:
	// capability N), which bubblewrap passes on to a root caller's
	// command.
	uid            int
	caps, bounding uint64
	// known is the capabilities this kernel has (bit N: capability N, up
	// to cap_last_cap); 0 where unknown. --cap-add ALL means these.
	known uint64
}

// bwrapRun is a bubblewrap command line in nsrun's terms.
type bwrapRun struct {
	policy *nsrun.Policy
	args   []string
	env    []string
	dir    string // --chdir made absolute; "" leaves nsrun's (and bubblewrap's) default
	tty    nsrun.TTYMode
	// noFDs are the caller's descriptors bubblewrap consumes itself and
	// does not pass on to the command.
	noFDs []int
	// front is what the launch is asked beyond the policy: argv[0], the
	// capabilities, /dev/core, no NSRUN_SANDBOX.
	front front.Settings
}

// refusal is an option, or a use of one, that nsrun cannot honour as
// bubblewrap means it.
type refusal struct {
	option string // as bubblewrap names it, with its arguments where they decide
	why    string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("%s is not supported by nsrun's bubblewrap mode (%s)", r.option, r.why)
}

func refuse(option, why string) error { return &refusal{option, why} }

// bwrapFailure is a failure bubblewrap itself would report, in its words.
type bwrapFailure struct{ msg string }

func (e *bwrapFailure) Error() string { return e.msg }

// lowerBwrap turns a parsed and checked bubblewrap command line into an
// nsrun policy that shows what bubblewrap would show, or refuses it,
// naming the option. ns are the namespaces as bwrap.Args.Check settled
// them.
func lowerBwrap(a *bwrap.Args, ns bwrap.Namespaces, h bwrapHost) (*bwrapRun, error) {
	if err := refuseSettings(a, h); err != nil {
		return nil, err
	}
	p := &nsrun.Policy{Net: nsrun.NetHost}
	if ns.Net {
		p.Net = nsrun.NetNone
	}
	if a.UID != -1 {
		uid := a.UID
		p.UID = &uid
	}
	if a.GID != -1 {
		gid := a.GID
		p.GID = &gid
	}
	p.Hostname = a.Hostname
	if h.noSeccomp {
		p.Seccomp = "off"
	}
	if h.noLandlock {
		p.Landlock = nsrun.LandlockOff
		// bubblewrap's meaning where nsrun's layers leave room for it:
		// the command may make user namespaces (and mount in them,
		// which a Landlock domain forbids) unless --disable-userns.
		p.AllowUserns = !h.noSeccomp && !a.DisableUserns && !a.AssertUsernsDisabled
	}
	ops, err := effectiveOps(a.Ops, h)
	if err != nil {
		return nil, err
	}
	if ops, err = makeOnHost(ops, h); err != nil {
		return nil, err
	}
	f := frontSettings(a, ns, ops, h)
	if err := lowerOps(p, &f, ops, h); err != nil {
		return nil, err
	}
	run := &bwrapRun{policy: p, args: a.Command, env: editEnv(h.env, a.Env), tty: nsrun.TTYAuto, front: f}
	if a.NewSession || a.AsPid1 {
		// bubblewrap's setsid(): the streams as they are, no controlling
		// terminal. Without it nsrun's own pty stands in for the caller's
		// terminal, which bubblewrap would hand over. A payload in the
		// init's place (--as-pid-1) has no init to relay a pty either.
		run.tty = nsrun.TTYNever
	}
	if a.ChdirSet {
		run.dir = path.Join("/", a.Chdir)
	}
	run.noFDs = append(run.noFDs, a.ArgsFDs...)
	for _, fd := range []int{a.SyncFD, a.BlockFD, a.InfoFD, a.JSONStatusFD} {
		if fd >= 0 {
			run.noFDs = append(run.noFDs, fd)
		}
	}
	for _, o := range a.Ops {
		if o.FD >= 0 {
			run.noFDs = append(run.noFDs, o.FD)
		}
	}
	return run, nil
}

// refuseSettings refuses the process settings nsrun cannot give.
func refuseSettings(a *bwrap.Args, h bwrapHost) error {
	switch {
	case a.Argv0Set && a.Argv0 == "":
		return refuse("--argv0 ''", "nsrun gives the command a non-empty argv[0]")
	case a.SeccompFD != -1:
		return refuse("--seccomp", "nsrun loads JSON seccomp profiles, not BPF programs")
	case len(a.AddSeccompFDs) > 0:
		return refuse("--add-seccomp-fd", "nsrun loads JSON seccomp profiles, not BPF programs")
	case a.UsernsBlockFD != -1:
		return refuse("--userns-block-fd", "nsrun makes its user namespace itself")
	case a.UsernsFD != -1:
		return refuse("--userns", "nsrun makes its user namespace itself")
	case a.Userns2FD != -1:
		return refuse("--userns2", "nsrun makes its user namespace itself")
	case a.PidnsFD != -1:
		return refuse("--pidns", "nsrun makes its pid namespace itself")
	case a.ExecLabel != "":
		return refuse("--exec-label", "no SELinux labels")
	case a.FileLabel != "":
		return refuse("--file-label", "no SELinux labels")
	case len(a.DebugOpts) > 0:
		return refuse("--debug-opt="+a.DebugOpts[0], "bubblewrap's own debugging")
	case h.noSeccomp && a.DisableUserns:
		return refuse("--disable-userns", "nsrun's seccomp filter is what refuses new namespaces, and NSRUN_BWRAP_SECCOMP=off turned it off")
	case h.noSeccomp && a.AssertUsernsDisabled:
		return refuse("--assert-userns-disabled", "nsrun's seccomp filter is what refuses new namespaces, and NSRUN_BWRAP_SECCOMP=off turned it off")
	}
	return nil
}

// frontSettings are bubblewrap's process settings nsrun's Policy has no
// words for: argv[0], the capabilities bubblewrap leaves the command
// (for root, its own; --cap-add and --cap-drop), /dev/core under --dev,
// and an environment without nsrun's NSRUN_SANDBOX.
func frontSettings(a *bwrap.Args, ns bwrap.Namespaces, ops []bop, h bwrapHost) front.Settings {
	f := front.Settings{NoSandboxEnv: true, AsPid1: a.AsPid1}
	if a.Argv0Set {
		f.Argv0 = a.Argv0
	}
	if h.uid == 0 || len(a.Caps) > 0 {
		keep := a.RequestedCaps(h.uid, h.caps)
		if h.known != 0 {
			// ALL names 64 bits; the kernel refuses those it lacks.
			keep &= h.known
		}
		// bubblewrap sets the bounding set only in a user namespace of
		// its own; else the caller's stays.
		f.Caps = &front.Caps{Keep: keep, Bounding: keep, Ambient: len(a.Caps) > 0}
		if !ns.User {
			f.Caps.Bounding = h.bounding
		}
	}
	if i := lastAt(ops, "/dev"); i >= 0 && ops[i].Kind == bwrap.Dev {
		f.DevCore = true
	}
	return f
}

// bop is an operation with its paths made absolute and cleaned: a
// source against the current directory (bubblewrap resolves it with
// realpath), a destination against the sandbox's root.
type bop struct {
	bwrap.Op
	mode     fs.FileMode // of the source, for binds
	readOnly bool        // --remount-ro applied to it
	// upper and work are --overlay's RWSRC and WORKDIR, resolved.
	upper, work string
}

// isMount says the operation mounts at its destination, covering what
// earlier operations made there and below.
func isMount(k bwrap.Kind) bool {
	switch k {
	case bwrap.Bind, bwrap.ROBind, bwrap.DevBind, bwrap.Tmpfs, bwrap.Proc, bwrap.Dev,
		bwrap.TmpOverlay, bwrap.Overlay, bwrap.ROOverlay, bwrap.Mqueue, bwrap.BindData, bwrap.ROBindData:
		return true
	}
	return false
}

// within says whether the clean absolute path p is base or below it.
func within(p, base string) bool {
	return base == "/" || p == base || strings.HasPrefix(p, base+"/")
}

// effectiveOps applies bubblewrap's order to the operations: a mount
// covers whatever earlier operations made at its place and below, so
// those are dropped, and what is left holds the same in nsrun's
// order-free rules, where the deepest rule decides. Operations nsrun has
// no equivalent for are refused here, -try binds of missing sources
// skipped, --remount-ro folded into the bind it names.
func effectiveOps(in []bwrap.Op, h bwrapHost) ([]bop, error) {
	var out []bop
	for _, o := range in {
		b := bop{Op: o}
		b.Dest = path.Join("/", o.Dest)
		if err := unsupportedOp(o); err != nil {
			return nil, err
		}
		switch o.Kind {
		case bwrap.Bind, bwrap.ROBind, bwrap.DevBind:
			src := o.Source
			if o.FD >= 0 {
				p, err := h.fdPath(o.FD)
				if err != nil {
					return nil, &bwrapFailure{fmt.Sprintf("Can't find source path %s: %s", o.Source, bwrap.Strerror(err))}
				}
				src = p
			}
			src = absFrom(h.cwd, src)
			mode, err := h.stat(src)
			if err != nil {
				if o.Try && errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, &bwrapFailure{fmt.Sprintf("Can't find source path %s: %s", o.Source, bwrap.Strerror(err))}
			}
			b.Source, b.mode = src, mode
		case bwrap.TmpOverlay, bwrap.Overlay, bwrap.ROOverlay:
			if err := resolveOverlay(&b, h); err != nil {
				return nil, err
			}
		case bwrap.RemountRO:
			i := lastAt(out, b.Dest)
			if i < 0 || (out[i].Kind != bwrap.Bind && out[i].Kind != bwrap.ROBind && out[i].Kind != bwrap.Tmpfs) {
				return nil, refuse("--remount-ro "+o.Dest, "nsrun can make read-only only what a --bind, --ro-bind or --tmpfs showed at that very place")
			}
			out[i].readOnly = true
			// Submounts too: the binds and tmpfs made below it by
			// earlier options (nsrun's rules are order-free, so the
			// deepest one would otherwise decide and stay writable).
			for j := i + 1; j < len(out); j++ {
				if !isMount(out[j].Kind) || !within(out[j].Dest, b.Dest) {
					continue
				}
				switch out[j].Kind {
				case bwrap.Bind, bwrap.ROBind, bwrap.Tmpfs:
					out[j].readOnly = true
				case bwrap.Proc, bwrap.Dev, bwrap.Mqueue, bwrap.ROOverlay, bwrap.BindData, bwrap.ROBindData:
					// read-only already, or nothing of the host's to write
				default:
					return nil, refuse("--remount-ro "+o.Dest, "nsrun cannot make the writable mount at "+out[j].Dest+" below it read-only")
				}
			}
			continue
		case bwrap.Dir:
			// bubblewrap makes nothing where a mount or a directory it
			// made already is.
			if i := lastAt(out, b.Dest); i >= 0 && (isMount(out[i].Kind) || out[i].Kind == bwrap.Dir) {
				continue
			}
		case bwrap.Symlink:
			// The same link again is no change; another is bubblewrap's
			// error.
			if i := lastAt(out, b.Dest); i >= 0 && out[i].Kind == bwrap.Symlink {
				if out[i].Source == o.Source {
					continue
				}
				return nil, &bwrapFailure{fmt.Sprintf("Can't make symlink at %s: existing destination is %s", o.Dest, out[i].Source)}
			}
		}
		if isMount(o.Kind) {
			kept := out[:0]
			for _, e := range out {
				if !within(e.Dest, b.Dest) {
					kept = append(kept, e)
					continue
				}
				if e.Kind == bwrap.Symlink && e.Dest == b.Dest {
					return nil, &bwrapFailure{"Can't mount on symlink destination " + o.Dest}
				}
			}
			out = kept
		}
		out = append(out, b)
	}
	return out, nil
}

// absFrom is p made absolute against dir, and clean.
func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// lastAt is the index of the last operation at dest, or -1.
func lastAt(ops []bop, dest string) int {
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Dest == dest {
			return i
		}
	}
	return -1
}

// unsupportedOp refuses the operations nsrun cannot give as bubblewrap
// does, whatever their place.
func unsupportedOp(o bwrap.Op) error {
	switch {
	case o.Kind == bwrap.Mqueue:
		return refuse("--mqueue", "not yet")
	}
	return nil
}

// resolveOverlay makes an overlay's host directories (its sources, and
// --overlay's upper and work directories) absolute and resolves their
// symlinks, as bubblewrap does with realpath.
func resolveOverlay(b *bop, h bwrapHost) error {
	resolve := func(p string) (string, error) {
		r, err := h.realpath(absFrom(h.cwd, p))
		if err != nil {
			return "", &bwrapFailure{fmt.Sprintf("Can't find source path %s: %s", p, bwrap.Strerror(err))}
		}
		return r, nil
	}
	given := b.Op.Sources
	b.Sources = make([]string, len(given))
	for i, src := range given {
		r, err := resolve(src)
		if err != nil {
			return err
		}
		b.Sources[i] = r
	}
	if b.Kind != bwrap.Overlay {
		return nil
	}
	upper, err := resolve(b.Op.Source)
	if err != nil {
		return err
	}
	work, err := resolve(b.Workdir)
	if err != nil {
		return err
	}
	b.upper, b.work = upper, work
	return nil
}

// lowerOps turns the effective operations into the policy's root and
// rules.
func lowerOps(p *nsrun.Policy, f *front.Settings, ops []bop, h bwrapHost) error {
	rootAt := lastAt(ops, "/")
	hostRoot, err := lowerRoot(p, ops, rootAt, h)
	if err != nil {
		return err
	}
	placed := map[string]bool{}
	for i, o := range ops {
		placed[o.Dest] = true
		if i == rootAt {
			continue
		}
		if err := lowerOp(p, f, o, h); err != nil {
			return err
		}
	}
	restoreHostPlaces(p, hostRoot, placed, h)
	return nil
}

// lowerRoot sets the policy's root from the operation at "/" (rootAt, -1
// for none): it returns the host directory shown as the root, "" when the
// root is not a host directory.
func lowerRoot(p *nsrun.Policy, ops []bop, rootAt int, h bwrapHost) (string, error) {
	if rootAt < 0 || ops[rootAt].Kind == bwrap.Tmpfs {
		// bubblewrap's root is an empty tmpfs of its own: an empty
		// directory with a private, discarded upper layer is that.
		dir, err := h.emptyRoot()
		if err != nil {
			return "", err
		}
		p.Root = dir
		p.Rules = append(p.Rules, nsrun.Rule{Path: "/", Access: nsrun.Overlay})
		return "", nil
	}
	o := ops[rootAt]
	switch {
	case o.Kind == bwrap.ROBind || o.Kind == bwrap.Bind:
		if !o.mode.IsDir() {
			return "", &bwrapFailure{"Destination is not a file /"}
		}
		if o.Source != "/" {
			p.Root = o.Source
		}
		if o.Kind == bwrap.Bind && !o.readOnly {
			p.Rules = append(p.Rules, nsrun.Rule{Path: "/", Access: nsrun.ReadWrite})
		}
		return o.Source, nil
	case o.Kind == bwrap.TmpOverlay, o.Kind == bwrap.Overlay, o.Kind == bwrap.ROOverlay:
		return "", refuse(o.Option+" /", "nsrun lays overlays over directories of the sandbox's root, not as the root")
	}
	return "", refuse(opArgs(o), "nsrun's root is a directory, read-only, writable or an overlay")
}

// special are the places where nsrun mounts its own file systems.
var special = []string{"/dev", "/proc", "/sys"}

func underSpecial(p string) string {
	for _, s := range special {
		if within(p, s) {
			return s
		}
	}
	return ""
}

// lowerOp adds the rule for one operation other than the root's.
func lowerOp(p *nsrun.Policy, f *front.Settings, o bop, h bwrapHost) error {
	args := opArgs(o)
	sp := underSpecial(o.Dest)
	switch o.Kind {
	case bwrap.Proc:
		if o.Dest != "/proc" {
			return refuse(args, "nsrun mounts its /proc at /proc only")
		}
		p.Proc = nsrun.ProcPrivate
		return nil
	case bwrap.Dev:
		if o.Dest != "/dev" {
			return refuse(args, "nsrun makes its /dev at /dev only")
		}
		return nil
	case bwrap.DevBind:
		if sp != "/dev" || o.Dest == "/dev" || o.mode&fs.ModeDevice == 0 {
			return refuse(args, "nsrun shows devices one by one, at places under /dev")
		}
		access := nsrun.Device
		if o.mode&fs.ModeCharDevice == 0 {
			access = nsrun.BlockDevice
		}
		p.Rules = append(p.Rules, nsrun.Rule{Path: o.Dest, Access: access, From: o.Source})
		return nil
	case bwrap.Bind, bwrap.ROBind:
		return lowerBind(p, o, args, sp, h)
	}
	if sp != "" {
		return refuse(args, "nsrun's "+sp+" is its own, with nothing laid over it")
	}
	switch o.Kind {
	case bwrap.Tmpfs:
		p.Rules = append(p.Rules, nsrun.Rule{Path: o.Dest, Access: nsrun.Tmpfs})
		if o.Perms != 0o755 || o.Size != 0 || o.readOnly {
			f.Tmpfs = append(f.Tmpfs, front.Tmpfs{Path: o.Dest, Mode: uint32(o.Perms), Size: o.Size, ReadOnly: o.readOnly})
		}
	case bwrap.File, bwrap.BindData, bwrap.ROBindData:
		data, err := h.readFD(o.FD)
		if err != nil {
			return &bwrapFailure{fmt.Sprintf("Can't read from fd %d: %s", o.FD, bwrap.Strerror(err))}
		}
		f.Files = append(f.Files, front.File{Path: o.Dest, Content: string(data), Mode: uint32(o.Perms), ReadOnly: o.Kind == bwrap.ROBindData})
	case bwrap.Dir:
		if o.Perms != 0o755 {
			return refuse("--perms", "nsrun gives a directory a mode of the caller's only in a writable host tree, where it makes it on the host as bubblewrap does")
		}
		p.Rules = append(p.Rules, nsrun.Rule{Path: o.Dest, Access: nsrun.Directory})
	case bwrap.Chmod:
		return refuse("--chmod", "nsrun changes modes only in a writable host tree, on the host as bubblewrap does")
	case bwrap.Symlink:
		p.Rules = append(p.Rules, nsrun.Rule{Path: o.Dest, Access: nsrun.Symlink, From: o.Op.Source})
	case bwrap.TmpOverlay, bwrap.Overlay, bwrap.ROOverlay:
		lowerOverlay(p, f, o)
	default:
		return refuse(o.Option, "not yet")
	}
	return nil
}

// lowerOverlay is --tmp-overlay, --overlay and --ro-overlay: an nsrun
// overlay of the highest source at DEST (what makes its mount point, and
// gives it write in the Landlock rules), which the front settings
// complete with the sources beneath, --overlay's host upper and work
// directories, or no upper layer (--ro-overlay: read-only, Landlock's
// read and execute only).
func lowerOverlay(p *nsrun.Policy, f *front.Settings, o bop) {
	top := o.Sources[len(o.Sources)-1]
	r := nsrun.Rule{Path: o.Dest, Access: nsrun.Overlay}
	if top != o.Dest {
		r.From = top
	}
	p.Rules = append(p.Rules, r)
	ov := front.Overlay{Path: o.Dest, ReadOnly: o.Kind == bwrap.ROOverlay, Upper: o.upper, Work: o.work}
	// overlayfs takes its lower layers highest first, bubblewrap's
	// --overlay-src lowest first.
	for i := len(o.Sources) - 2; i >= 0; i-- {
		ov.Lower = append(ov.Lower, o.Sources[i])
	}
	if len(ov.Lower) > 0 || ov.ReadOnly || ov.Upper != "" {
		f.Overlays = append(f.Overlays, ov)
	}
}

// opArgs is the option with its paths as given, for messages.
func opArgs(o bop) string {
	if o.Kind == bwrap.Overlay {
		return o.Option + " " + o.Op.Source + " " + o.Workdir + " " + o.Op.Dest
	}
	if o.Op.Source != "" {
		return o.Option + " " + o.Op.Source + " " + o.Op.Dest
	}
	return o.Option + " " + o.Op.Dest
}

// lowerBind is --bind and --ro-bind (and their -try and -fd forms).
func lowerBind(p *nsrun.Policy, o bop, args, sp string, h bwrapHost) error {
	access := nsrun.ReadWrite
	if o.Kind == bwrap.ROBind || o.readOnly {
		access = nsrun.ReadOnly
	}
	if sp != "" {
		// The host's /sys, read-only with its submounts, is one nsrun has.
		if o.Dest == "/sys" && o.Source == "/sys" && access == nsrun.ReadOnly {
			p.Sys = nsrun.SysHost
			return nil
		}
		return refuse(args, "nsrun's "+sp+" is its own, with no bind laid over it")
	}
	if o.mode&fs.ModeDevice != 0 {
		// A device bound without --dev-bind cannot be opened (nodev):
		// bubblewrap's callers use /dev/null so to hide a file, which is
		// nsrun's deny.
		if lm, err := h.lstat(o.Dest); err == nil && lm&fs.ModeSymlink != 0 {
			return &bwrapFailure{"Can't mount on symlink destination " + o.Op.Dest}
		}
		mode, err := h.stat(o.Dest)
		if err != nil || mode.IsDir() {
			return refuse(args, "nsrun hides only an existing file behind a device")
		}
		p.Rules = append(p.Rules, nsrun.Rule{Path: o.Dest, Access: nsrun.Deny})
		return nil
	}
	r := nsrun.Rule{Path: o.Dest, Access: access}
	if o.Source != o.Dest {
		r.From = o.Source
	}
	p.Rules = append(p.Rules, r)
	return nil
}

// restoreHostPlaces keeps bubblewrap's view where nsrun would otherwise
// put its own: a root bound from the host shows the host's /tmp and /run
// (nsrun's would be private tmpfs), its /proc (where no --proc mounts a
// fresh one) and its /sys, read-only.
func restoreHostPlaces(p *nsrun.Policy, hostRoot string, placed map[string]bool, h bwrapHost) {
	if hostRoot == "" {
		return
	}
	access := nsrun.ReadOnly
	for _, r := range p.Rules {
		if r.Path == "/" && (r.Access == nsrun.ReadWrite || r.Access == nsrun.Overlay) {
			access = r.Access
		}
	}
	for _, dir := range []string{"/tmp", "/run", "/var/run"} {
		if placed[dir] {
			continue
		}
		host := path.Join(hostRoot, dir)
		mode, err := h.stat(host)
		if err != nil || !mode.IsDir() {
			continue
		}
		// /var/run is mostly a link to /run: only a real directory is
		// nsrun's to replace.
		if dir == "/var/run" {
			if lm, err := h.lstat(host); err != nil || lm&fs.ModeSymlink != 0 {
				continue
			}
		}
		r := nsrun.Rule{Path: dir, Access: access}
		if hostRoot != "/" {
			r.From = host
		}
		p.Rules = append(p.Rules, r)
	}
	if !placed["/proc"] && hostRoot == "/" {
		p.Proc = nsrun.ProcHost
	}
	if !placed["/sys"] && hostRoot == "/" {
		p.Sys = nsrun.SysHost
	}
}

// editEnv applies bubblewrap's environment edits, in order, to env.
func editEnv(env []string, edits []bwrap.EnvOp) []string {
	out := append([]string{}, env...)
	for _, e := range edits {
		switch e.Kind {
		case bwrap.ClearEnv:
			out = out[:0]
		case bwrap.UnsetEnv, bwrap.SetEnv:
			kept := out[:0]
			for _, kv := range out {
				if name, _, _ := strings.Cut(kv, "="); name != e.Name {
					kept = append(kept, kv)
				}
			}
			out = kept
			if e.Kind == bwrap.SetEnv {
				out = append(out, e.Name+"="+e.Value)
			}
		}
	}
	return out
}
