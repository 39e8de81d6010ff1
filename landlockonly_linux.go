package nsrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/landlock"
)

// The Landlock-only stage is started without namespaces; it restricts
// itself and executes the payload in its place.
const landlockStage = "nsrun-landlock"

// execDirs are where system programs live; in a Landlock-only sandbox
// they, the writable rules and the read-only rules can execute, and
// nothing else: a program dropped in a world-writable place cannot run.
var execDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}

// landlockDevices are the host devices a Landlock-only sandbox may use;
// the rest of the host's /dev gets no rights at all.
var landlockDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// prepareLandlockOnly builds a sandbox from Landlock (and seccomp) alone:
// the host root readable, programs executable only from the system's
// directories and the rules' paths, the rules' paths with their access, a
// private temporary directory, no /dev but a few devices and its own
// terminal, /proc read-only. Holes
// (deny, read-only inside writable) are carved out of the grants around
// them, since nothing else enforces them here.
func (c *Cmd) prepareLandlockOnly(p *Policy, user []canonRule, cwd string, env []string, x *extras) (*prepared, error) {
	switch {
	case p.Root != "":
		return nil, &IsolationError{Setting: "root"}
	case p.Hostname != "":
		return nil, &IsolationError{Setting: "hostname"}
	case p.UID != nil:
		return nil, &IsolationError{Setting: "uid"}
	case p.GID != nil:
		return nil, &IsolationError{Setting: "gid"}
	}
	if p.KeepChanges != "" {
		return nil, &IsolationError{Setting: "keep-changes"}
	}
	user, overruled := effective(user)
	for _, r := range user {
		switch {
		case r.Access != ReadOnly && r.Access != ReadWrite && r.Access != Deny:
			return nil, &IsolationError{Setting: r.Rule.Option()}
		case r.mapped():
			return nil, &IsolationError{Setting: r.Rule.Option()}
		case r.info != nil && r.info.Mode()&os.ModeSocket != 0 && r.Access != Deny:
			// Without mounts, a socket a rule names is reached by its own
			// path, where the Landlock-only mode decides about sockets.
			return nil, &RuleError{Rule: r.Rule, Err: errors.New("is a socket: a rule shows one only with namespaces (--isolation full)")}
		}
		if err := unpinnableLink(r, user, cwd); err != nil {
			return nil, err
		}
	}
	if p.TmpfsSize > 0 {
		return nil, &IsolationError{Setting: "tmpfs-size"}
	}
	if p.Landlock == LandlockOff {
		return nil, &SetupError{Code: ExitSetup, Msg: "--isolation landlock with --landlock off would leave nothing enforced"}
	}
	tmp, err := privateTmp()
	if err != nil {
		return nil, err
	}
	prep := &prepared{tmpDir: tmp}

	grants := []landlock.Grant{
		{Path: "/", Access: landlock.ReadFile | landlock.ReadDir, Dir: true},
		{Path: "/dev", Access: 0, Dir: true},
		{Path: "/proc", Access: landlock.ReadFile | landlock.ReadDir, Dir: true},
		{Path: tmp, Access: llRW, Dir: true},
	}
	for _, d := range landlockDevices {
		grants = append(grants, landlock.Grant{Path: d, Access: llDev})
	}
	// /dev/pts holds every session's terminal: only the payload's own pty
	// is granted, and no /dev/ptmx to make others.
	if tty := c.ttyGrant(); tty != "" {
		grants = append(grants, landlock.Grant{Path: tty, Access: llDev})
	}
	for _, d := range execDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			grants = append(grants, landlock.Grant{Path: d, Access: landlock.ReadExec, Dir: true})
		}
	}
	report := Report{
		Version: 1, Backend: "landlock",
		Filesystem: FilesystemReport{Root: "/", RW: []string{tmp}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}, Proc: "host", Sys: "host"},
	}
	for _, r := range user {
		access := map[Access]landlock.FS{ReadWrite: llRW, ReadOnly: landlock.ReadExec}[r.Access]
		grants = append(grants, landlock.Grant{Path: r.Canon, Access: access, Dir: r.Dir})
		switch r.Access {
		case ReadWrite:
			report.Filesystem.RW = append(report.Filesystem.RW, r.Canon)
		case ReadOnly:
			report.Filesystem.RO = append(report.Filesystem.RO, r.Canon)
		case Deny:
			report.Filesystem.Deny = append(report.Filesystem.Deny, r.Canon)
		}
	}
	// Without a network namespace, --net none is seccomp refusing every
	// socket but unix and netlink (and Landlock denying the ports where
	// the kernel can).
	if p.Net == NetNone && len(p.AllowConnect)+len(p.AllowBind) > 0 {
		prep.cleanup()
		return nil, &SetupError{Code: ExitSetup, Msg: "port rules need --net host"}
	}
	report.Network = networkReport(p)
	if prep.net, err = c.planNetwork(p, true, report.Network); err != nil {
		prep.cleanup()
		return nil, err
	}
	layersPolicy, limit := p, netAsPolicy
	switch {
	case prep.net != nil:
		// TCP connects to the proxy alone; UDP is seccomp's to refuse
		// (tcpOnly), on every ABI.
		layersPolicy, limit = prep.net.landlockPolicy(p), netConnectOnly
	case p.Net == NetNone:
		limit = netNothing
	}
	l, err := c.planLayers(layersPolicy, grants, limit, true)
	if err == nil && prep.net != nil {
		err = prep.net.addTCPOnly(p, l)
	}
	if err != nil {
		prep.cleanup()
		return nil, err
	}
	dir, err := c.workDir("/", user, cwd)
	if err != nil {
		prep.cleanup()
		return nil, err
	}
	report.Landlock, report.Seccomp = l.lreport, l.sreport
	report.Filesystem.Overruled = c.overruledReport(overruled)
	env = withTmpdir(env, tmp)
	if prep.net != nil {
		env = proxyEnv(env, prep.net.proxy, c.Env != nil)
		report.NotEnforced = append(report.NotEnforced, landlockNetNotEnforced(prep.net.proxy)...)
	}
	prep.report = report
	home := filepath.Join(tmp, "home")
	if p.Home == HomePrivate {
		if err := os.Mkdir(home, 0o700); err != nil {
			prep.cleanup()
			return nil, fmt.Errorf("private home: %w", err)
		}
	}
	env = payloadEnv(p, env, x.home, home, "landlock")
	prep.spec = initSpec{Env: env, Dir: dir, Landlock: l.landlock, Seccomp: l.seccomp}
	return prep, nil
}

// withTmpdir points TMPDIR at dir.
func withTmpdir(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir)
}

// runLandlockStage restricts itself and becomes the payload. It runs with
// the caller's credentials in the caller's namespaces; capabilities (a
// root caller's) are dropped like in the init.
func runLandlockStage() int {
	// Landlock, NO_NEW_PRIVS, capabilities and seccomp are per thread; execve
	// from this same thread hands them to the payload.
	runtime.LockOSThread()
	status, specFile := os.NewFile(statusFD, "status"), os.NewFile(specFD, "spec")
	// Neither may be closed by the collector once ExtraFiles take their
	// numbers (placeExtraFiles).
	defer runtime.KeepAlive(specFile)
	defer runtime.KeepAlive(status)
	fail := func(code int, err error) int {
		send(status, failure(code, err))
		return code
	}
	if err := unix.CloseRange(specFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail(ExitSetup, fmt.Errorf("close_range: %w", err))
	}
	spec, err := readSpec(specFile)
	if err != nil {
		return fail(ExitSetup, err)
	}
	if spec.Landlock == nil {
		return fail(ExitSetup, errors.New("no Landlock ruleset for a Landlock-only sandbox"))
	}
	var sigs chan os.Signal
	var notified chan struct{}
	if spec.TTY != nil {
		sigs, notified = notifySignals()
	}
	path, code, err := lockDown(spec, stepLogger(spec.Verbose, status), status)
	if err != nil {
		return fail(code, err)
	}
	if spec.TTY != nil {
		<-notified
		return superviseStage(spec, path, status, sigs)
	}
	moved, err := placeExtraFiles(spec.ExtraFiles, statusFD)
	if moved != statusFD {
		// Not closed: its number may be an ExtraFile's now.
		status = os.NewFile(uintptr(moved), "status")
	}
	if err != nil {
		return fail(ExitSetup, err)
	}
	err = unix.Exec(path, spec.Args, spec.Env)
	err = fmt.Errorf("exec %s: %w", spec.Args[0], err)
	return fail(execCode(err), err)
}
