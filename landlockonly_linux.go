package nsrun

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
)

// prepareLandlockOnly plans a sandbox from Landlock (and seccomp) alone
// (plan.LandlockOnly), over the network the root still plans (llNet), and
// raises the plan into the report.
func (c *Cmd) prepareLandlockOnly(p *Policy, user []canonRule, cwd string, env []string, x *extras) (*prepared, error) {
	if err := p.landlockOnlyIdentity(); err != nil {
		return nil, err
	}
	user, overruled := effective(user)
	prep := &prepared{}
	net := &llNet{c: c, p: p, report: networkReport(p)}
	in := plan.LandlockOnlyInput{Rules: lowerRules(user), Cwd: cwd, Env: env, Facts: x.facts,
		Absent: x.absent, Links: x.links, Held: x.held, Net: net,
		// The sandbox has no tmpfs of its own.
		TmpDir: func() (string, error) {
			t, err := sandbox.NewTmpDir()
			if err != nil {
				return "", err
			}
			prep.tmpDir = t
			return t.Path(), nil
		},
	}
	lo, err := plan.LandlockOnly(x.req, in, c.warnf, c.logf)
	prep.net = net.np
	if err != nil {
		prep.cleanup()
		return nil, raise(err)
	}
	prep.report = Report{Version: 1, Backend: "landlock", Filesystem: FilesystemReport(lo.FS), Network: net.report,
		Landlock: LandlockReport(lo.Landlock), Seccomp: SeccompReport(lo.Seccomp), Compensations: lo.Compensations, NotEnforced: lo.NotEnforced}
	prep.report.Filesystem.Overruled = c.overruledReport(overruled)
	if lo.Warning != "" {
		c.warnf("%s", lo.Warning)
	}
	home := filepath.Join(lo.Tmp, "home")
	if p.Home == HomePrivate {
		if err := os.Mkdir(home, 0o700); err != nil {
			prep.cleanup()
			return nil, fmt.Errorf("private home: %w", err)
		}
	}
	prep.spec = lo.Spec
	prep.spec.Env = payloadEnv(p, lo.Spec.Env, x.home, home, "landlock")
	return prep, nil
}

// landlockOnlyIdentity refuses the settings of the sandbox's own root,
// host name and ids, which need namespaces.
func (p *Policy) landlockOnlyIdentity() error {
	switch {
	case p.Root != "":
		return &IsolationError{Setting: "root"}
	case p.Hostname != "":
		return &IsolationError{Setting: "hostname"}
	case p.UID != nil:
		return &IsolationError{Setting: "uid"}
	case p.GID != nil:
		return &IsolationError{Setting: "gid"}
	}
	return nil
}

// llNet is a Landlock-only sandbox's filtered network as the root plans it
// (plan.LandlockOnlyNet): np once planned, nil for none.
type llNet struct {
	c      *Cmd
	p      *Policy
	report *NetworkReport
	np     *netPlan
}

func (n *llNet) Plan() (string, error) {
	np, err := n.c.planNetwork(n.p, true, n.report)
	if err != nil || np == nil {
		return "", err
	}
	n.np = np
	return np.proxy, nil
}

func (n *llNet) Layers() *plan.LayerRequest       { return layerRequest(n.np.landlockPolicy(n.p)) }
func (n *llNet) AddTCPOnly(l *plan.Layers) error  { return n.np.addTCPOnly(n.p, l) }
func (n *llNet) Env(env []string) []string        { return proxyEnv(env, n.np.proxy, n.c.Env != nil) }
func (n *llNet) NotEnforced(listen bool) []string { return landlockNetNotEnforced(n.np.proxy, listen) }

// pidfdGetfdAllowed reports whether this process may take another's
// descriptors (plan.PidfdGetfdAllowed), for the probe.
func pidfdGetfdAllowed() bool { return plan.PidfdGetfdAllowed() }
