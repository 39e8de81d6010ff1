package nsrun

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
	"github.com/nsrun/nsrun/seccomp"
)

// Rights nsrun grants through Landlock.
const (
	llRW   = landlock.AllFS &^ landlock.ResolveUnix
	llDev  = landlock.ReadFile | landlock.WriteFile | landlock.ReadDir | landlock.IoctlDev | landlock.Truncate
	llProc = landlock.ReadFile | landlock.WriteFile | landlock.ReadDir | landlock.Truncate
)

// layers is the Landlock ruleset and seccomp filter of a sandbox, with
// what the report says of them.
type layers struct {
	landlock *landlock.Ruleset
	seccomp  []seccomp.Program
	lreport  LandlockReport
	sreport  SeccompReport
	// bindRestricted: TCP binding is limited to the --allow-bind ports, so
	// listen() on a socket never bound must be checked.
	bindRestricted bool
}

// netRequest turns the port options into the network rights Landlock must
// handle and the port rules that grant them back. explicit are the rights
// of the protocols the rules name; implied, on the host's network, are the
// other protocol's in the same direction, handled too so that "the only
// ports" leaves no protocol open (a network namespace of the sandbox's own
// reaches nothing anyway).
func netRequest(p *Policy) (explicit, implied landlock.Net, ports []landlock.PortRule) {
	add := func(ranges []PortRange, tcp, udp landlock.Net) {
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
	add(p.AllowConnect, landlock.ConnectTCP, landlock.ConnectSendUDP)
	add(p.AllowBind, landlock.BindTCP, landlock.BindUDP)
	if p.Net != NetHost {
		implied = 0
	}
	return explicit, implied &^ explicit, ports
}

// unenforceablePort names the first port rule whose protocol the kernel's
// Landlock cannot restrict (handled are the rights it can), or "".
func unenforceablePort(p *Policy, handled landlock.Net) string {
	for _, o := range []struct {
		option   string
		ranges   []PortRange
		tcp, udp landlock.Net
	}{{"--allow-connect", p.AllowConnect, landlock.ConnectTCP, landlock.ConnectSendUDP}, {"--allow-bind", p.AllowBind, landlock.BindTCP, landlock.BindUDP}} {
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
				return fmt.Sprintf("%s %s: %s port rules need Landlock ABI %d", o.option, v, strings.ToUpper(r.Proto), abi)
			}
		}
	}
	return ""
}

// netLimit is what a sandbox without a network namespace needs of the
// layers beyond p's port rules.
type netLimit int

const (
	netAsPolicy    netLimit = iota // p's port rules, nothing more
	netNothing                     // no inet socket at all (--net none)
	netConnectOnly                 // p's connect rules and no bind or listen (the filtered network's proxy)
)

// layerOptions say what a sandbox needs of planLayers beyond p.
type layerOptions struct {
	// extraFS are filesystem rights to handle beyond nsrun's usual ones.
	extraFS landlock.FS
	limit   netLimit
	// carve makes Landlock enforce holes on its own (see landlock.Rules).
	carve bool
	// supervised: the Landlock-only stage's supervisor checks listen(),
	// not a listener of the guard's (a task tree has one listener).
	supervised bool
}

// planLayers decides Landlock and seccomp for grants. With netNothing the
// sandbox has no network namespace and must have no network: seccomp
// refuses every socket but unix and netlink, and Landlock also denies the
// ports where the kernel can (never reported as dropped: seccomp covers
// them).
func (c *Cmd) planLayers(p *Policy, grants []landlock.Grant, o layerOptions) (*layers, error) {
	limit := o.limit
	noNetwork := limit == netNothing
	l := &layers{lreport: LandlockReport{Status: "off", Dropped: []string{}}}
	if p.AllowUserns && p.Landlock != LandlockOff {
		return nil, &SetupError{Code: ExitSetup, Msg: "--allow-userns: namespaces inside are of no use under Landlock, which forbids mounting in them; add --landlock off"}
	}
	explicit, implied, ports := netRequest(p)
	if p.Landlock == LandlockOff {
		if explicit != 0 || noNetwork {
			return nil, &SetupError{Code: ExitSetup, Msg: "port rules and --isolation landlock need Landlock, which is off"}
		}
	} else {
		abi, errata, err := landlock.ABI()
		if err != nil {
			abi, errata = 0, 0
		}
		if bad := unenforceablePort(p, landlock.Decide(landlock.Request{Net: explicit}, abi, errata).Handled.Net); bad != "" {
			has := fmt.Sprintf("ABI %d", abi)
			if abi == 0 {
				has = "no Landlock"
			}
			return nil, &SetupError{Code: ExitSetup, Msg: bad + "; this kernel has " + has}
		}
		netRights := explicit | implied
		if limit == netConnectOnly {
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
		req := landlock.Request{FS: llRW | o.extraFS, Net: netRights, Scope: landlock.AbstractUnixSocket | landlock.Signal}
		d := landlock.Decide(req, abi, errata)
		l.lreport = LandlockReport{Status: d.Status, ABI: d.ABI, RequestedABI: d.RequestedABI, Dropped: d.Dropped, Reason: d.Reason}
		if l.lreport.Dropped == nil {
			l.lreport.Dropped = []string{}
		}
		if d.Status != "full" {
			c.warnf("landlock: %s", d.Reason)
		}
		rules, err := landlock.Rules(grants, d.Handled.FS, o.carve, listDir)
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Op: "landlock rules", Err: err}
		}
		l.landlock = &landlock.Ruleset{Handled: d.Handled, Paths: rules, Ports: ports}
	}
	guard := seccomp.GuardOptions{NoNetwork: noNetwork}
	if explicit != 0 {
		rights := explicit | implied
		guard.Ports = &seccomp.PortGuard{Connect: rights&landlock.ConnectTCP != 0, Bind: rights&landlock.BindTCP != 0}
	}
	l.bindRestricted = guard.Ports != nil && guard.Ports.Bind
	names := guard.Names()
	if o.supervised && l.bindRestricted {
		// The Landlock-only filter hands listen() over instead.
		guard.Ports.Bind = false
	}
	return l, c.planSeccomp(p, l, guard, names)
}

// planSeccomp compiles the seccomp profile, and nsrun's guard beside it
// (seccomp.Guard): no set-uid or set-gid files, and what the network
// options need from seccomp.
func (c *Cmd) planSeccomp(p *Policy, l *layers, guard seccomp.GuardOptions, names []string) error {
	var prof seccomp.Profile
	switch p.Seccomp {
	case "off":
		switch {
		case guard.Ports != nil:
			return &SetupError{Code: ExitSetup, Msg: "port rules need seccomp to refuse what Landlock's port rules do not see (MPTCP, SCTP, ping sockets, TCP Fast Open, listen() on an unbound socket); seccomp is off"}
		case guard.NoNetwork:
			return &SetupError{Code: ExitSetup, Msg: "--net none without a network namespace (--isolation landlock) needs seccomp to refuse inet sockets; seccomp is off"}
		}
		l.sreport = SeccompReport{Status: "off"}
		return nil
	case "", "default":
		prof = seccomp.Default(seccomp.Options{AllowUserns: p.AllowUserns})
	default:
		data, err := os.ReadFile(p.Seccomp)
		if err != nil {
			return &SeccompError{Path: p.Seccomp, Err: err}
		}
		prof, err = seccomp.ParseOCI(data, filepath.Base(p.Seccomp), seccompHost())
		if err != nil {
			return &SeccompError{Path: p.Seccomp, Err: err}
		}
	}
	compiled, err := seccomp.Compile(prof)
	if err != nil {
		return &SeccompError{Path: p.Seccomp, Err: err}
	}
	if len(compiled.Skipped) > 0 {
		c.warnf("seccomp profile %s allows calls this system cannot name; they stay denied: %s", prof.Name, strings.Join(compiled.Skipped, ", "))
	}
	for _, d := range compiled.Dropped {
		c.warnf("seccomp profile %s: %s, as libseccomp resolves it for runc and crun", prof.Name, d)
	}
	if len(compiled.Unfiltered) > 0 {
		c.warnf("seccomp profile %s lists the architectures %s; nsrun filters the native one only, so their calls are killed", prof.Name, strings.Join(compiled.Unfiltered, ", "))
	}
	g, err := seccomp.Compile(seccomp.Guard(guard))
	if err != nil {
		return &SetupError{Code: ExitSetup, Op: "seccomp guard", Err: err}
	}
	// The kernel takes the strictest action of all filters and, between
	// two errnos, the newest filter's: the profile is loaded last so that
	// its errnos stand where both refuse a call.
	l.seccomp = []seccomp.Program{g.Program, compiled.Program}
	l.sreport = SeccompReport{Status: "full", Profile: prof.Name, SyscallsBlocked: compiled.Blocked, Rules: names}
	return nil
}

// seccompHost is what decides which rules of a Docker profile apply here.
func seccompHost() seccomp.Host {
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
		id := plan.Identity(info)
		out = append(out, landlock.Entry{Name: e.Name(), Dir: e.IsDir(), Symlink: e.Type()&os.ModeSymlink != 0,
			ID: landlock.Identity{Dev: id.Dev, Ino: id.Ino}})
	}
	return out, nil
}

// fullGrants are the Landlock grants of a sandbox with namespaces: the
// view the mounts build, as defence in depth under them. The device ioctl
// right is on the sandbox's own nodes, its terminals and each device a
// rule adds, and nowhere else in /dev.
func fullGrants(plan *mounts.Plan) []landlock.Grant {
	root := landlock.ReadExec
	if !plan.Root.ReadOnly || plan.Root.Kind == mounts.OpOverlay {
		root = llRW
	}
	proc := llProc
	for _, op := range plan.Ops {
		if op.Kind == mounts.OpHostProc {
			// The caller's procfs: nothing to write there, even where a
			// file's mode would let the payload.
			proc = landlock.ReadFile | landlock.ReadDir
		}
	}
	g := []landlock.Grant{
		{Path: "/", Access: root, Dir: true},
		{Path: "/dev", Access: llDev &^ landlock.IoctlDev, Dir: true},
		{Path: "/dev/pts", Access: llDev, Dir: true},
		{Path: "/dev/shm", Access: llRW, Dir: true},
		{Path: "/proc", Access: proc, Dir: true},
	}
	for _, n := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		g = append(g, landlock.Grant{Path: "/dev/" + n, Access: llDev})
	}
	for _, op := range plan.Ops {
		switch {
		case op.Pin:
			// The same rights as the writable tree around it.
		case op.Kind == mounts.OpBind && op.ReadOnly:
			g = append(g, landlock.Grant{Path: op.Path, Access: landlock.ReadExec, Dir: op.Dir})
		case op.Kind == mounts.OpBind, op.Kind == mounts.OpTmpfs && !op.ReadOnly, op.Kind == mounts.OpOverlay:
			g = append(g, landlock.Grant{Path: op.Path, Access: llRW, Dir: op.Dir})
		case op.Kind == mounts.OpDev:
			for _, d := range op.Devices {
				g = append(g, landlock.Grant{Path: path.Join(op.Path, d.Path), Access: llDev})
			}
		}
	}
	return g
}

// enforcement is the report's overall word on the layers. The host's
// network, asked for, is no layer missing.
func enforcement(r *Report, hostNet bool) string {
	ns := r.Namespaces
	if ns.User && ns.Mount && ns.PID && ns.IPC && ns.UTS && (ns.Net || hostNet) && ns.Cgroup &&
		r.Landlock.Status == "full" && r.Seccomp.Status == "full" && r.Filesystem.Proc != "host" {
		return "full"
	}
	if !ns.User && r.Landlock.Status != "full" && r.Landlock.Status != "partial" {
		return "none"
	}
	return "partial"
}

// strictError lists what keeps a sandbox from being fully enforced.
func strictError(r *Report, isolation Isolation) error {
	var missing []string
	if isolation == IsolationLandlock {
		missing = append(missing, "namespaces (--isolation landlock)")
	} else if r.Filesystem.Proc == "host" {
		missing = append(missing, "a private /proc (--proc host)")
	}
	if r.Landlock.Status != "full" {
		what := r.Landlock.Status
		if len(r.Landlock.Dropped) > 0 {
			what = strings.Join(r.Landlock.Dropped, ", ")
		}
		missing = append(missing, fmt.Sprintf("landlock: %s", what))
	}
	if r.Seccomp.Status != "full" {
		what := "seccomp: " + r.Seccomp.Status
		if r.Seccomp.Reason != "" {
			what += " (" + r.Seccomp.Reason + ")"
		}
		missing = append(missing, what)
	}
	if len(missing) == 0 {
		return nil
	}
	return &SetupError{Code: ExitSetup, Msg: "--strict: not fully enforced: " + strings.Join(missing, "; ")}
}
