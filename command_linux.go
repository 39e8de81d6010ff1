package nsrun

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/environ"
	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/plan"
	"github.com/nsrun/nsrun/internal/sandbox"
	"github.com/nsrun/nsrun/mounts"
)

// sysCmd is the running sandbox as the Cmd holds it: the sandbox itself
// (internal/sandbox), and what the library looks at again once it is gone.
type sysCmd struct {
	sb      *sandbox.Sandbox
	started time.Time
	git     *gitProtection  // looked at again once the sandbox is gone
	denials *plan.DenialLog // --trace-denials: what the tracer recorded
	judge   *plan.Judge     // --trace-denials: attributes what was refused
	shims   []string        // version managers' shims directories (plan.ShimDirs)
}

// backend names the Linux backend in the report.
func (c *Cmd) backend() string {
	if c.policy().Isolation == IsolationLandlock {
		return "landlock"
	}
	return "linux"
}

// stopper is the running sandbox, to end it from outside.
func (c *Cmd) stopper() stopper {
	if c.inSession() {
		return c.session
	}
	if c.sys == nil || c.sys.sb == nil {
		return nil
	}
	return c.sys
}

// shimDirs is what start found of plan.ShimDirs (nil before it).
func (c *Cmd) shimDirs() []string {
	if c.sys == nil {
		return nil
	}
	return c.sys.shims
}

func (s *sysCmd) Terminate() error { return s.sb.Terminate() }
func (s *sysCmd) Kill() error      { return s.sb.Kill() }

// start builds the sandbox and starts the command in it.
//
// The first process is started first and boots (exec, Go runtime) while
// this process checks the paths and plans the sandbox; it waits for its
// spec before it touches anything, and is killed if planning fails.
func (c *Cmd) start() error {
	if c.inSession() {
		return c.startInSession()
	}
	s := &sysCmd{started: time.Now()}
	c.sys = s
	p := c.policy()
	fail := func(err error) error {
		c.report.notBuilt(c.backend(), err)
		return err
	}
	ids, idErr := policyIDs(p)
	if idErr != nil || len(c.Args) == 0 || c.Args[0] == "" {
		// Bad input: nothing needs to start, nor be made to name it.
		return fail(c.inputError(idErr))
	}
	if err := ttyCheck(c.TTY); err != nil {
		return fail(err)
	}
	if p.ShimLayers && p.Root == "" && p.Home == HomeInherit {
		// Before the fork: an overlay wants the init's capabilities.
		env := c.Env
		if env == nil {
			env = os.Environ()
		}
		s.shims = plan.ShimDirs(env)
	}
	sb, err := sandbox.New(c.sandboxAttr(p, ids, s.started))
	if err != nil {
		return fail(raiseSandbox(err))
	}
	s.sb = sb
	prep, err := c.forkAndPlan(sb, p, ids)
	if err != nil {
		return fail(err)
	}
	c.report, s.git = prep.report, prep.git
	told := c.tellFront(sb)
	if c.session != nil {
		prep.Spec.Session, c.session.env = true, prep.Spec.Env
	}
	if v := sb.CgroupVersion(); v != "" && hasLimits(p) {
		c.report.Limits["cgroup"] = v
	}
	if p.Isolation == IsolationLandlock {
		c.logf("Landlock only: no namespaces, no mounts; stage started, planned at %.2f ms", ms(time.Since(s.started)))
	} else {
		c.logf("init started in new namespaces, %d mounts over %s planned at %.2f ms",
			len(prep.Spec.Plan.Ops)+1, prep.Spec.Plan.Root.Source, ms(time.Since(s.started)))
	}
	if c.afterPrepare != nil {
		c.afterPrepare()
	}
	if err := sb.Send(&prep.Spec, c.hooks(p, prep)); err != nil {
		sb.Abort()
		return fail(raiseSandbox(err))
	}
	if !told {
		c.tellFront(sb)
	}
	if prep.Net != nil {
		c.logf("network: proxy on %s, DNS on %s", prep.Net.Proxy, c.report.Network.DNS)
	}
	if _, err := sb.Await(); err != nil {
		sb.Abort()
		return fail(raiseSandbox(err))
	}
	c.report.TimingsMS.Setup = ms(sb.Running().Sub(s.started))
	c.logf("sandbox ready in %.2f ms", c.report.TimingsMS.Setup)
	return nil
}

// tellFront gives a front end that asks for it (bubblewrap's --info-fd)
// the pid of the sandbox's first process while it is alive, so that its
// namespaces can be read: once it is forked, before the payload could
// have ended (an init that Send starts has no pid before). It says
// whether it told.
func (c *Cmd) tellFront(sb *sandbox.Sandbox) bool {
	f := front.From(c.ctx)
	if f == nil || f.Started == nil || sb.Pid() == 0 {
		return false
	}
	f.Started(sb.Pid())
	return true
}

// hasLimits says whether p limits the sandbox through a cgroup.
func hasLimits(p *Policy) bool {
	return p.Memory > 0 || p.Pids > 0 || p.CPU > 0
}

// sandboxAttr lowers the Cmd and its policy into what the sandbox is
// started with.
func (c *Cmd) sandboxAttr(p *Policy, ids idMap, started time.Time) *sandbox.Attr {
	return &sandbox.Attr{
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, ExtraFiles: c.ExtraFiles,
		Log: c.Log, Started: started,
		Direct: p.Isolation == IsolationLandlock, Traced: p.TraceDenials,
		UID: ids.uid, GID: ids.gid, HostUID: ids.hostUID, HostGID: ids.hostGID,
		HostNet: p.Net == NetHost, Overlay: hasOverlay(p) || len(c.sys.shims) > 0, Network: p.servesNetwork(),
		Limits: cgroupLimits(p),
		TTY:    sandbox.TTYMode(c.TTY), WindowSize: sandbox.WindowSize(c.WindowSize),
		KeepCaps:    front.From(c.ctx).KeptCaps(),
		ShareMemory: c.ShareMemory,
	}
}

// forkAndPlan starts the sandbox's first process and, while it execs and
// boots, checks the paths and decides all it needs. A planning error comes
// before a failed start: it names the input. On an error nothing of the
// sandbox is left running.
func (c *Cmd) forkAndPlan(sb *sandbox.Sandbox, p *Policy, ids idMap) (*prepared, error) {
	forkErr := sb.Fork()
	prep, err := c.prepare(plan.Facts(sb.Facts()))
	if err == nil {
		err = raise(plan.ApplyFront(&prep.Spec, front.From(c.ctx)))
	}
	if err == nil && forkErr == nil {
		return prep, nil
	}
	sb.Abort()
	if prep != nil {
		prep.cleanup()
	}
	if err != nil {
		return nil, err
	}
	return nil, raiseSandbox(forkErr)
}

// prepare checks the paths and plans the sandbox: c lowered (request, and
// lower once the home is made) into plan.Make, whose plan is raised into
// the report.
func (c *Cmd) prepare(f plan.Facts) (*prepared, error) {
	p := c.policy()
	user, cwd, err := c.checkInput(p)
	if err != nil {
		return nil, err
	}
	ids, _ := policyIDs(p) // checked by start
	req, err := c.request(p, ids, cwd)
	if err != nil {
		return nil, err
	}
	req.Shims = c.shimDirs()
	prep := &prepared{}
	req.Hooks = plan.Hooks{
		Lower: func(h *plan.Home, root string) (*plan.Lowered, error) { return c.lower(p, user, h, root, prep) },
		TmpDir: func() (string, error) {
			t, err := sandbox.NewTmpDir()
			if err != nil {
				return "", err
			}
			prep.tmpDir = t
			return t.Path(), nil
		},
		Warn: c.warnf, Logf: c.logf, Keep: func(name string) bool { return environ.MatchAny(p.KeepEnv, name) },
		Log: c.Log, Warnings: c.Warnings,
	}
	if prep.Result, err = plan.Make(req, f); err != nil {
		_ = prep.tmpDir.Remove()
		return nil, raise(err)
	}
	prep.report = c.reportOf(p, prep, ids)
	return prep, nil
}

// hooks is what the sandbox is given with its spec: what to watch, serve
// and trace, and what to clean up once it is gone.
func (c *Cmd) hooks(p *Policy, prep *prepared) *sandbox.Hooks {
	h := &sandbox.Hooks{
		Absent: prep.Targets,
		Watch:  func(begun, done <-chan struct{}) { c.startWatch(c.sys, begun, done) },
		// Set before the watch may call Cancel, which may use it.
		Started:   func(proc *os.Process) { c.Process = proc },
		AllowBind: launchPorts(p.AllowBind),
		TmpDir:    prep.tmpDir, Kept: prep.Kept, KeptLock: prep.KeptLock,
	}
	if prep.Net != nil {
		h.Network = &prep.Net.Config
	}
	if p.TraceDenials {
		h.Trace = func() (sandbox.Tracer, error) { return c.traceDenials(p, prep) }
		h.Refused = plan.RefusedBy(prep.Filters)
	}
	return h
}

// traceDenials makes the judge of --trace-denials, which attributes each
// refused call to the rule or layer that refused it, and returns what the
// sandbox's tracer tells every refused call it sees: the judge, then the
// log of the denials.
func (c *Cmd) traceDenials(p *Policy, prep *prepared) (sandbox.Tracer, error) {
	eff, err := p.Effect()
	if err != nil {
		return nil, err
	}
	direct := p.Isolation == IsolationLandlock
	j := newJudge(p, eff.Rules, direct)
	if direct && prep.Tmp != "" {
		j.Writable = []string{prep.Tmp}
	}
	s := c.sys
	s.denials, s.judge = plan.NewDenialLog(maxDenials), j
	return j.Trace(func(host int, d plan.Denial) {
		if !c.session.addDenial(host, d) {
			s.denials.Add(d)
		}
	}), nil
}

// newJudge is the judge of --trace-denials for a sandbox of p built from
// the effective rules: Resolve over them is what nsrun policy explain
// answers.
func newJudge(p *Policy, rules []Rule, landlockOnly bool) *plan.Judge {
	j := &plan.Judge{Root: "host root", LandlockOnly: landlockOnly, HostNet: p.Net == NetHost, Filtered: p.filtersNetwork()}
	if p.Root != "" {
		j.Root = "--root " + p.Root
	}
	j.Resolve = func(path string) (mounts.Access, string, bool, bool) {
		access, by, ok := Resolve(rules, path)
		if !ok {
			return 0, "", false, false
		}
		return mounts.Access(access), ruleLabel(by), by.Source == SourceMandatory, true
	}
	return j
}

// ruleLabel names a rule as the command line gives it.
func ruleLabel(r Rule) string {
	if r.Source == SourceInternal {
		return "nsrun's " + r.Access.String() + " " + r.Path
	}
	s := "--" + r.Option() + " "
	if r.From != "" {
		s += r.From + " "
	}
	s += r.Path
	if r.Source == SourceMandatory {
		s += " (mandatory)"
	}
	return s
}

// wait waits for the payload to exit and every process of the sandbox to
// end, and for its output to be copied. It returns how the payload ended,
// and what copying its output met.
func (c *Cmd) wait() (*ExitError, error) {
	if c.inSession() {
		return c.waitInSession()
	}
	s := c.sys
	end := s.sb.Wait()
	if end.Served && c.report.Network != nil {
		c.report.Network.Connections, c.report.Network.Denied = networkCounts(end.Connections), networkCounts(end.Denied)
	}
	if s.denials != nil {
		// What the Landlock-only supervisor failed, its tracer never saw.
		s.judge.Refusals(s.denials, end.Refusals, end.RefusalsDropped)
		c.report.Denials, c.report.DenialsDropped = denialsOf(s.denials)
	}
	usage := UsageReport(end.Usage)
	c.report.Usage = &usage
	if end.Limits != nil {
		c.reportLimits(*end.Limits)
	}
	c.reportAppeared(end.Found)
	if s.git != nil {
		c.report.NestedRepositories = s.git.prot.Review(c.warnf)
	}
	cut, ioErr := s.sb.Finish(c.awaitIO)
	if cut {
		// Closing the pipes is what made the copy fail, if it did.
		ioErr = ErrWaitDelay
	}
	c.report.TimingsMS.Run = ms(time.Since(s.sb.Running()))
	ee := &ExitError{Code: end.Code, Signal: end.Signal}
	if end.Appeared != "" {
		ee.Appeared = end.Appeared
		if ee.Code == 0 {
			ee.Code = 1
		}
	}
	return ee, ioErr
}

// Signal sends sig to the sandbox's init, which passes it on to the
// payload.
func (c *Cmd) Signal(sig os.Signal) error {
	if !c.running {
		return errors.New("nsrun: Signal before Start")
	}
	ss, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("nsrun: unsupported signal %v", sig)
	}
	if c.inSession() {
		return c.session.signal(unix.Signal(ss))
	}
	return c.sys.sb.Signal(unix.Signal(ss))
}

// Resize sets the size of the payload's pseudo-terminal; the payload gets
// SIGWINCH when it changes. It fails when the payload has none.
func (c *Cmd) Resize(ws WindowSize) error {
	if c.sys == nil || c.sys.sb == nil {
		return errNoPTY
	}
	err := c.sys.sb.Resize(sandbox.WindowSize(ws))
	if errors.Is(err, sandbox.ErrNoPTY) {
		return errNoPTY
	}
	return err
}

var errNoPTY = errors.New("nsrun: Resize: the payload has no pseudo-terminal of its own")

// logf writes a line of the Linux backend's timeline to the Cmd's Log.
func (c *Cmd) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "nsrun: "+format+"\n", a...)
	}
}

// awaitIO waits until done is closed (the payload's output has been
// copied), or cuts the copying with closeIO as WaitDelay says.
func (c *Cmd) awaitIO(done <-chan struct{}, closeIO func()) (cut bool) {
	return c.end.AwaitIO(c.WaitDelay, done, closeIO)
}
