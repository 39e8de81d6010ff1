package plan

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/errs"
	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

// Rights nsrun grants through Landlock.
const (
	// RW is a writable tree's: everything but reaching unix sockets by
	// path, which is granted where sockets are shown.
	RW   = landlock.AllFS &^ landlock.ResolveUnix
	Dev  = landlock.ReadFile | landlock.WriteFile | landlock.ReadDir | landlock.IoctlDev | landlock.Truncate
	Proc = landlock.ReadFile | landlock.WriteFile | landlock.ReadDir | landlock.Truncate
)

// Layers is the Landlock ruleset and seccomp filter of a sandbox, with
// what the report says of them.
type Layers struct {
	Landlock       *landlock.Ruleset
	Seccomp        []seccomp.Program
	LandlockReport LandlockReport
	SeccompReport  SeccompReport
	// BindRestricted: TCP binding is limited to the allowed bind ports,
	// so listen() on a socket never bound must be checked.
	BindRestricted bool
}

// LayerRequest is what of a policy the layers are planned from.
type LayerRequest struct {
	LandlockOff bool
	AllowUserns bool
	HostNet     bool
	// Connect and Bind are the port rules (AllowConnect, AllowBind).
	Connect, Bind []launch.PortRange
	// Seccomp is "" or "default" for nsrun's profile, "off", or the
	// path of an OCI profile.
	Seccomp string
}

// netRequest turns the port options into the network rights Landlock must
// handle and the port rules that grant them back. explicit are the rights
// of the protocols the rules name; implied, on the host's network, are the
// other protocol's in the same direction, handled too so that "the only
// ports" leaves no protocol open (a network namespace of the sandbox's own
// reaches nothing anyway).
func netRequest(p *LayerRequest) (explicit, implied landlock.Net, ports []landlock.PortRule) {
	add := func(ranges []launch.PortRange, tcp, udp landlock.Net) {
		if len(ranges) > 0 {
			implied |= tcp | udp
		}
		for _, r := range ranges {
			bit := tcp
			if r.Proto == "udp" {
				bit = udp
			}
			explicit |= bit
			for port := int(r.First); port <= int(r.Last); port++ {
				ports = append(ports, landlock.PortRule{Port: uint16(port), Access: bit})
			}
		}
	}
	add(p.Connect, landlock.ConnectTCP, landlock.ConnectSendUDP)
	add(p.Bind, landlock.BindTCP, landlock.BindUDP)
	if !p.HostNet {
		implied = 0
	}
	return explicit, implied &^ explicit, ports
}

// unenforceablePort names the first port rule whose protocol the kernel's
// Landlock cannot restrict (handled are the rights it can), or is nil.
func unenforceablePort(p *LayerRequest, handled landlock.Net) error {
	for _, o := range []struct {
		option   errs.Setting
		ranges   []launch.PortRange
		tcp, udp landlock.Net
	}{{errs.AllowConnect, p.Connect, landlock.ConnectTCP, landlock.ConnectSendUDP}, {errs.AllowBind, p.Bind, landlock.BindTCP, landlock.BindUDP}} {
		for _, r := range o.ranges {
			bit, abi := o.tcp, 4
			if r.Proto == "udp" {
				bit, abi = o.udp, 10
			}
			if handled&bit == 0 {
				v := fmt.Sprintf("%s:%d", r.Proto, r.First)
				if r.Last != r.First {
					v += fmt.Sprintf("-%d", r.Last)
				}
				return errs.New("%s: %s port rules need Landlock ABI %d", o.option.With(v), strings.ToUpper(r.Proto), abi)
			}
		}
	}
	return nil
}

// NetLimit is what a sandbox without a network namespace needs of the
// layers beyond the port rules.
type NetLimit int

const (
	NetAsPolicy    NetLimit = iota // the port rules, nothing more
	NetNothing                     // no inet socket at all (no network)
	NetConnectOnly                 // the connect rules and no bind or listen (the filtered network's proxy)
)

// LayerOptions say what a sandbox needs of Plan beyond the request.
type LayerOptions struct {
	// ExtraFS are filesystem rights to handle beyond nsrun's usual ones.
	ExtraFS landlock.FS
	Limit   NetLimit
	// Carve makes Landlock enforce holes on its own (see landlock.Rules).
	Carve bool
	// Supervised: the Landlock-only stage's supervisor checks listen(),
	// not a listener of the guard's (a task tree has one listener).
	Supervised bool
}

// PlanLayers decides Landlock and seccomp for grants. With NetNothing the
// sandbox has no network namespace and must have no network: seccomp
// refuses every socket but unix and netlink, and Landlock also denies the
// ports where the kernel can (never reported as dropped: seccomp covers
// them).
func PlanLayers(p *LayerRequest, grants []landlock.Grant, o LayerOptions, warn func(string, ...any)) (*Layers, error) {
	limit := o.Limit
	noNetwork := limit == NetNothing
	l := &Layers{LandlockReport: LandlockReport{Status: "off", Dropped: []string{}}}
	if p.AllowUserns && !p.LandlockOff {
		return nil, &Error{Err: errs.New("%s: namespaces inside are of no use under Landlock, which forbids mounting in them; add %s", errs.AllowUserns, errs.LandlockOff)}
	}
	explicit, implied, ports := netRequest(p)
	if p.LandlockOff {
		if explicit != 0 || noNetwork {
			return nil, &Error{Err: errs.New("port rules and %s need Landlock, which is off", errs.IsolationLandlock)}
		}
	} else {
		abi, errata, err := landlock.ABI()
		if err != nil {
			abi, errata = 0, 0
		}
		if bad := unenforceablePort(p, landlock.Decide(landlock.Request{Net: explicit}, abi, errata).Handled.Net); bad != nil {
			has := fmt.Sprintf("ABI %d", abi)
			if abi == 0 {
				has = "no Landlock"
			}
			return nil, &Error{Err: errs.New("%w; this kernel has %s", bad, has)}
		}
		netRights := explicit | implied
		if limit == NetConnectOnly {
			// Binding is handled with no port allowed. listen() on an
			// unbound socket still binds a port no bind() shows: the
			// Landlock-only supervisor checks it where it can take the
			// payload's sockets (see prepareLandlockOnly).
			netRights |= landlock.BindTCP
		}
		if noNetwork {
			all := landlock.BindTCP | landlock.ConnectTCP | landlock.BindUDP | landlock.ConnectSendUDP
			netRights |= landlock.Decide(landlock.Request{Net: all}, abi, errata).Handled.Net
		}
		req := landlock.Request{FS: RW | o.ExtraFS, Net: netRights, Scope: landlock.AbstractUnixSocket | landlock.Signal}
		d := landlock.Decide(req, abi, errata)
		l.LandlockReport = LandlockReport{Status: d.Status, ABI: d.ABI, RequestedABI: d.RequestedABI, Dropped: d.Dropped, Reason: d.Reason}
		if l.LandlockReport.Dropped == nil {
			l.LandlockReport.Dropped = []string{}
		}
		if d.Status != "full" {
			warn("landlock: %s", d.Reason)
		}
		rules, err := landlock.Rules(grants, d.Handled.FS, o.Carve, listDir)
		if err != nil {
			return nil, &Error{Op: "landlock rules", Err: err}
		}
		l.Landlock = &landlock.Ruleset{Handled: d.Handled, Paths: rules, Ports: ports}
	}
	guard := seccomp.GuardOptions{NoNetwork: noNetwork}
	if explicit != 0 {
		rights := explicit | implied
		guard.Ports = &seccomp.PortGuard{Connect: rights&landlock.ConnectTCP != 0, Bind: rights&landlock.BindTCP != 0}
	}
	l.BindRestricted = guard.Ports != nil && guard.Ports.Bind
	names := guard.Names()
	if o.Supervised && l.BindRestricted {
		// The Landlock-only filter hands listen() over instead.
		guard.Ports.Bind = false
	}
	return l, planSeccomp(p, l, guard, names, warn)
}

// planSeccomp compiles the seccomp profile, and nsrun's guard beside it
// (seccomp.Guard): no set-uid or set-gid files, and what the network
// options need from seccomp.
func planSeccomp(p *LayerRequest, l *Layers, guard seccomp.GuardOptions, names []string, warn func(string, ...any)) error {
	var prof seccomp.Profile
	switch p.Seccomp {
	case "off":
		switch {
		case guard.Ports != nil:
			return &Error{Msg: "port rules need seccomp to refuse what Landlock's port rules do not see (MPTCP, SCTP, ping sockets, TCP Fast Open, listen() on an unbound socket); seccomp is off"}
		case guard.NoNetwork:
			return &Error{Err: errs.New("%s without a network namespace (%s) needs seccomp to refuse inet sockets; seccomp is off", errs.NetNone, errs.IsolationLandlock)}
		}
		l.SeccompReport = SeccompReport{Status: "off"}
		return nil
	case "", "default":
		prof = seccomp.Default(seccomp.Options{AllowUserns: p.AllowUserns})
	default:
		data, err := os.ReadFile(p.Seccomp)
		if err != nil {
			return &Error{Kind: KindSeccomp, Path: p.Seccomp, Err: err}
		}
		prof, err = seccomp.ParseOCI(data, filepath.Base(p.Seccomp), SeccompHost())
		if err != nil {
			return &Error{Kind: KindSeccomp, Path: p.Seccomp, Err: err}
		}
	}
	compiled, err := seccomp.Compile(prof)
	if err != nil {
		return &Error{Kind: KindSeccomp, Path: p.Seccomp, Err: err}
	}
	if len(compiled.Skipped) > 0 {
		warn("seccomp profile %s allows calls this system cannot name; they stay denied: %s", prof.Name, strings.Join(compiled.Skipped, ", "))
	}
	for _, d := range compiled.Dropped {
		warn("seccomp profile %s: %s, as libseccomp resolves it for runc and crun", prof.Name, d)
	}
	if len(compiled.Unfiltered) > 0 {
		warn("seccomp profile %s lists the architectures %s; nsrun filters the native one only, so their calls are killed", prof.Name, strings.Join(compiled.Unfiltered, ", "))
	}
	g, err := seccomp.Compile(seccomp.Guard(guard))
	if err != nil {
		return &Error{Op: "seccomp guard", Err: err}
	}
	// The kernel takes the strictest action of all filters and, between
	// two errnos, the newest filter's: the profile is loaded last so that
	// its errnos stand where both refuse a call.
	l.Seccomp = []seccomp.Program{g.Program, compiled.Program}
	l.SeccompReport = SeccompReport{Status: "full", Profile: prof.Name, SyscallsBlocked: compiled.Blocked, Rules: names}
	return nil
}

// SeccompHost is what decides which rules of a Docker profile apply here.
func SeccompHost() seccomp.Host {
	h := seccomp.Host{Arch: map[string]string{"amd64": "SCMP_ARCH_X86_64", "arm64": "SCMP_ARCH_AARCH64"}[runtime.GOARCH]}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &h.Kernel[0], &h.Kernel[1])
	}
	return h
}

// listDir lists a directory for carving Landlock rules.
func listDir(dir string) ([]landlock.Entry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]landlock.Entry, 0, len(ents))
	for _, e := range ents {
		// The identity makes the stage refuse an entry swapped for
		// another between this listing and the rules; an entry gone
		// meanwhile gets no rule.
		info, err := e.Info()
		if err != nil {
			continue
		}
		id := Identity(info)
		out = append(out, landlock.Entry{Name: e.Name(), Dir: e.IsDir(), Symlink: e.Type()&os.ModeSymlink != 0,
			ID: landlock.Identity{Dev: id.Dev, Ino: id.Ino}})
	}
	return out, nil
}

// FullGrants are the Landlock grants of a sandbox with namespaces: the
// view the mounts build, as defence in depth under them. The device ioctl
// right is on the sandbox's own nodes, its terminals and each device a
// rule adds, and nowhere else in /dev.
func FullGrants(plan *mounts.Plan) []landlock.Grant {
	root := landlock.ReadExec
	if !plan.Root.ReadOnly || plan.Root.Kind == mounts.OpOverlay {
		root = RW
	}
	proc := Proc
	for _, op := range plan.Ops {
		if op.Kind == mounts.OpHostProc {
			// The caller's procfs: nothing to write there, even where a
			// file's mode would let the payload.
			proc = landlock.ReadFile | landlock.ReadDir
		}
	}
	g := []landlock.Grant{
		{Path: "/", Access: root, Dir: true},
		{Path: "/dev", Access: Dev &^ landlock.IoctlDev, Dir: true},
		{Path: "/dev/pts", Access: Dev, Dir: true},
		{Path: "/dev/shm", Access: RW, Dir: true},
		{Path: "/proc", Access: proc, Dir: true},
	}
	for _, d := range mounts.DevicePaths() {
		g = append(g, landlock.Grant{Path: d, Access: Dev})
	}
	for _, op := range plan.Ops {
		switch {
		case op.Pin:
			// The same rights as the writable tree around it.
		case (op.Kind == mounts.OpBind || op.Kind == mounts.OpOverlay) && op.ReadOnly:
			g = append(g, landlock.Grant{Path: op.Path, Access: landlock.ReadExec, Dir: op.Dir})
		case op.Kind == mounts.OpBind, op.Kind == mounts.OpTmpfs && !op.ReadOnly, op.Kind == mounts.OpOverlay:
			g = append(g, landlock.Grant{Path: op.Path, Access: RW, Dir: op.Dir})
		case op.Kind == mounts.OpDev:
			for _, d := range op.Devices {
				g = append(g, landlock.Grant{Path: path.Join(op.Path, d.Path), Access: Dev})
			}
		}
	}
	return g
}
