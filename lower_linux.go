package nsrun

import (
	"errors"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/landlock"
)

// layerRequest lowers what of p the layers are planned from.
func layerRequest(p *Policy) *plan.LayerRequest {
	r := &plan.LayerRequest{LandlockOff: p.Landlock == LandlockOff, AllowUserns: p.AllowUserns,
		HostNet: p.Net == NetHost, Seccomp: p.Seccomp}
	for _, pr := range p.AllowConnect {
		r.Connect = append(r.Connect, launch.PortRange(pr))
	}
	for _, pr := range p.AllowBind {
		r.Bind = append(r.Bind, launch.PortRange(pr))
	}
	return r
}

// planLayers plans the Landlock and seccomp layers of p's sandbox over
// grants.
func (c *Cmd) planLayers(p *Policy, grants []landlock.Grant, o plan.LayerOptions) (*plan.Layers, error) {
	l, err := plan.PlanLayers(layerRequest(p), grants, o, c.warnf)
	return l, raise(err)
}

// raise turns a planning failure into the public error it stands for.
func raise(err error) error {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Kind {
	case plan.KindSeccomp:
		return &SeccompError{Path: pe.Path, Err: pe.Err}
	}
	return &SetupError{Code: ExitSetup, Op: pe.Op, Msg: pe.Msg, Err: pe.Err}
}
