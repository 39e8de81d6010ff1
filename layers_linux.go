package nsrun

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

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
}

// netRequest turns the port options into the network rights to handle and
// the port rules that grant them back.
func netRequest(p *Policy) (landlock.Net, []landlock.PortRule) {
	var handled landlock.Net
	var ports []landlock.PortRule
	add := func(ranges []PortRange, tcp, udp landlock.Net) {
		for _, r := range ranges {
			bit := tcp
			if r.Proto == "udp" {
				bit = udp
			}
			handled |= bit
			for port := int(r.First); port <= int(r.Last); port++ {
				ports = append(ports, landlock.PortRule{Port: uint16(port), Access: bit})
			}
		}
	}
	add(p.AllowConnect, landlock.ConnectTCP, landlock.ConnectSendUDP)
	add(p.AllowBind, landlock.BindTCP, landlock.BindUDP)
	return handled, ports
}

// planLayers decides Landlock and seccomp for grants. extraFS are
// filesystem rights to handle beyond nsrun's usual ones; extraNet are
// network rights to deny without any port rule (all of them when Landlock
// is the only thing keeping a sandbox off the network). carve makes
// Landlock enforce holes on its own (see landlock.Rules).
func (c *Cmd) planLayers(p *Policy, grants []landlock.Grant, extraFS landlock.FS, extraNet landlock.Net, carve bool) (*layers, error) {
	l := &layers{lreport: LandlockReport{Status: "off", Dropped: []string{}}}
	if p.AllowUserns && p.Landlock != LandlockOff {
		return nil, &SetupError{Code: ExitSetup, Msg: "--allow-userns: namespaces inside are of no use under Landlock, which forbids mounting in them; add --landlock off"}
	}
	netRights, ports := netRequest(p)
	tcp := false
	if p.Landlock == LandlockOff {
		if netRights != 0 || extraNet != 0 {
			return nil, &SetupError{Code: ExitSetup, Msg: "port rules and --isolation landlock need Landlock, which is off"}
		}
	} else {
		req := landlock.Request{FS: llRW | extraFS, Net: netRights | extraNet, Scope: landlock.AbstractUnixSocket | landlock.Signal}
		abi, errata, err := landlock.ABI()
		if err != nil {
			abi, errata = 0, 0
		}
		d := landlock.Decide(req, abi, errata)
		l.lreport = LandlockReport{Status: d.Status, ABI: d.ABI, RequestedABI: d.RequestedABI, Dropped: d.Dropped, Reason: d.Reason}
		if l.lreport.Dropped == nil {
			l.lreport.Dropped = []string{}
		}
		if d.Status != "full" {
			c.warnf("landlock: %s", d.Reason)
		}
		rules, err := landlock.Rules(grants, d.Handled.FS, carve, listDir)
		if err != nil {
			return nil, &SetupError{Code: ExitSetup, Msg: "landlock rules: " + err.Error()}
		}
		l.landlock = &landlock.Ruleset{Handled: d.Handled, Paths: rules, Ports: ports}
		tcp = d.Handled.Net&(landlock.BindTCP|landlock.ConnectTCP) != 0
	}
	return l, c.planSeccomp(p, l, tcp)
}

// planSeccomp compiles the seccomp profile, and the filter that refuses
// MPTCP when TCP ports are restricted: Landlock's TCP rules do not see it.
func (c *Cmd) planSeccomp(p *Policy, l *layers, tcp bool) error {
	var prof seccomp.Profile
	switch p.Seccomp {
	case "off":
		if tcp {
			return &SetupError{Code: ExitSetup, Msg: "port rules need seccomp to refuse MPTCP sockets, which Landlock does not see; seccomp is off"}
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
	if len(compiled.Unfiltered) > 0 {
		c.warnf("seccomp profile %s lists the architectures %s; nsrun filters the native one only, so their calls are killed", prof.Name, strings.Join(compiled.Unfiltered, ", "))
	}
	l.seccomp = []seccomp.Program{compiled.Program}
	l.sreport = SeccompReport{Status: "full", Profile: prof.Name, SyscallsBlocked: compiled.Blocked}
	if tcp {
		mptcp, err := seccomp.MPTCP(runtime.GOARCH)
		if err != nil {
			return &SetupError{Code: ExitSetup, Msg: "TCP port rules need MPTCP refused: " + err.Error()}
		}
		l.seccomp = append(l.seccomp, mptcp)
		l.sreport.SyscallsBlocked++
	}
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
		id := identity(info)
		out = append(out, landlock.Entry{Name: e.Name(), Dir: e.IsDir(), Symlink: e.Type()&os.ModeSymlink != 0,
			ID: landlock.Identity{Dev: id.Dev, Ino: id.Ino}})
	}
	return out, nil
}

// fullGrants are the Landlock grants of a sandbox with namespaces: the
// view the mounts build, as defence in depth under them.
func fullGrants(plan *mounts.Plan) []landlock.Grant {
	root := landlock.ReadExec
	if !plan.Root.ReadOnly {
		root = llRW
	}
	g := []landlock.Grant{
		{Path: "/", Access: root, Dir: true},
		{Path: "/dev", Access: llDev, Dir: true},
		{Path: "/dev/shm", Access: llRW, Dir: true},
		{Path: "/proc", Access: llProc, Dir: true},
	}
	for _, op := range plan.Ops {
		switch {
		case op.Kind == mounts.OpBind && op.ReadOnly:
			g = append(g, landlock.Grant{Path: op.Path, Access: landlock.ReadExec, Dir: op.Dir})
		case op.Kind == mounts.OpBind, op.Kind == mounts.OpTmpfs && !op.ReadOnly:
			g = append(g, landlock.Grant{Path: op.Path, Access: llRW, Dir: op.Dir})
		}
	}
	return g
}

// enforcement is the report's overall word on the layers.
func enforcement(r *Report) string {
	ns := r.Namespaces
	if ns.User && ns.Mount && ns.PID && ns.IPC && ns.UTS && ns.Net && ns.Cgroup &&
		r.Landlock.Status == "full" && r.Seccomp.Status == "full" {
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

// privateTmp is the temporary directory of a Landlock-only sandbox, which
// has no tmpfs of its own.
func privateTmp() (string, error) {
	dir, err := os.MkdirTemp("", "nsrun-")
	if err != nil {
		return "", fmt.Errorf("private temporary directory: %w", err)
	}
	return filepath.EvalSymlinks(dir)
}
