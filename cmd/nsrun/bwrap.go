package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/internal/bwrap"
	"github.com/nsrun/nsrun/internal/front"
)

// bwrapVersion is the bubblewrap whose command line nsrun's bubblewrap
// mode parses.
const bwrapVersion = "0.12.0"

// isBwrapName says whether nsrun was run under bubblewrap's name (a
// symlink or copy called bwrap, or argv[0] set so by the caller).
func isBwrapName(argv0 string) bool {
	return filepath.Base(argv0) == "bwrap"
}

// bwrapLog writes bubblewrap's diagnostics: "bwrap: " and the message,
// after "<3>" or "<4>" with --level-prefix.
type bwrapLog struct {
	w      io.Writer
	prefix bool
}

func (l bwrapLog) print(level int, msg string) {
	if l.prefix {
		fmt.Fprintf(l.w, "<%d>", level)
	}
	fmt.Fprintln(l.w, "bwrap:", oneLine(msg))
}

func (l bwrapLog) die(msg string) int {
	l.print(3, msg)
	return 1
}

// bwrapMain is nsrun run as bwrap: argv0 is the name it was run under,
// args what follows it. It returns the exit status: the command's, or 1
// when bubblewrap would fail (and nsrun does, or refuses).
func bwrapMain(argv0 string, args []string, stdin, stdout, stderr *os.File) int {
	a, err := bwrap.Parse(args, readArgsFD)
	log := bwrapLog{w: stderr, prefix: a != nil && a.LevelPrefix}
	if a != nil {
		for _, w := range a.Warnings {
			log.print(4, w)
		}
	}
	if err == nil && !a.Help && !a.Version {
		var ns bwrap.Namespaces
		if ns, err = a.Check(hostIDs()); err == nil {
			return runBwrap(a, ns, log, stdin, stdout, stderr)
		}
	}
	switch {
	case errors.Is(err, bwrap.ErrUsage):
		writeBwrapUsage(stderr, argv0)
		return 1
	case err != nil:
		return log.die(err.Error())
	case a.Help:
		writeBwrapUsage(stdout, argv0)
	case a.Version:
		fmt.Fprintf(stdout, "bubblewrap %s (nsrun %s)\n", bwrapVersion, version)
	}
	return 0
}

// runBwrap lowers a checked command line to a policy and runs it.
func runBwrap(a *bwrap.Args, ns bwrap.Namespaces, log bwrapLog, stdin, stdout, stderr *os.File) int {
	h, cleanup, err := newBwrapHost()
	if err != nil {
		return log.die(err.Error())
	}
	defer cleanup()
	run, err := lowerBwrap(a, ns, h)
	if err != nil {
		return log.die(err.Error())
	}
	if run.dir == "" {
		run.dir = bwrapDefaultDir(run.policy, run.env, h)
	}
	share, err := shareMemoryFromEnv()
	if err != nil {
		return log.die(err.Error())
	}
	var report *reportFile
	if name := os.Getenv("NSRUN_REPORT"); name != "" {
		if report, err = openReport(name, stderr); err != nil {
			return log.die(fmt.Sprintf("NSRUN_REPORT %s: %v", name, err))
		}
	}
	if err := takeLocks(run.policy, a.LockFiles); err != nil {
		return log.die(err.Error())
	}
	if a.DieWithParent {
		if err := dieWithParent(); err != nil {
			return log.die("prctl: " + bwrap.Strerror(err))
		}
	}
	extra, err := inheritedFiles(run.noFDs)
	if err != nil {
		return log.die(err.Error())
	}
	if a.BlockFD >= 0 {
		blockOn(a.BlockFD)
	}

	status := newBwrapStatus(a, ns)
	run.front.Started = status.started
	cmd := nsrun.CommandContext(front.With(context.Background(), &run.front), run.policy, run.args[0], run.args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env, cmd.Dir, cmd.TTY, cmd.ExtraFiles, cmd.ShareMemory = run.env, run.dir, run.tty, extra, share
	if os.Getenv("NSRUN_BWRAP_VERBOSE") == "1" {
		cmd.Log, cmd.Warnings = stderr, stderr
		if run.policy.AllowUserns {
			fmt.Fprintln(stderr, "nsrun: nested user namespaces allowed, as bubblewrap allows them without --disable-userns (NSRUN_BWRAP_LANDLOCK=off: a Landlock domain could not mount in them)")
		}
	}
	err = startAndWait(cmd)
	code := nsrun.ExitCode(err)
	var ee *nsrun.ExitError
	if err != nil && !errors.As(err, &ee) {
		code = log.die(bwrapFailureText(err, run.args[0]))
	} else {
		status.exited(code)
	}
	status.close()
	if report != nil {
		if werr := report.write(cmd.Report()); werr != nil {
			log.print(3, fmt.Sprintf("NSRUN_REPORT %s: %v", report.name, werr))
		}
	}
	return code
}

// bwrapStatus writes bubblewrap's JSON on --info-fd and --json-status-fd:
// once the sandbox runs, the pid of its first process and the
// namespaces bubblewrap would have made; on --json-status-fd, once the
// command ran and exited, its status.
type bwrapStatus struct {
	info, json *os.File
	// names are the namespaces listed, in bubblewrap's order.
	names []string
}

func newBwrapStatus(a *bwrap.Args, ns bwrap.Namespaces) *bwrapStatus {
	s := &bwrapStatus{names: bwrapNamespaceNames(ns)}
	if a.InfoFD >= 0 {
		s.info = os.NewFile(uintptr(a.InfoFD), "--info-fd")
	}
	if a.JSONStatusFD >= 0 {
		s.json = os.NewFile(uintptr(a.JSONStatusFD), "--json-status-fd")
	}
	return s
}

// bwrapNamespaceNames are the namespaces bubblewrap reports: the mount
// namespace, and those the command line unshared.
func bwrapNamespaceNames(ns bwrap.Namespaces) []string {
	var out []string
	for _, n := range []struct {
		name string
		on   bool
	}{{"cgroup", ns.Cgroup || ns.CgroupTry}, {"ipc", ns.IPC}, {"mnt", true}, {"net", ns.Net}, {"pid", ns.PID}, {"uts", ns.UTS}} {
		if n.on {
			out = append(out, n.name)
		}
	}
	return out
}

// started writes the first lines, for the sandbox's first process pid
// (host pid); a namespace nsrun cannot read is left out, as bubblewrap
// leaves it.
func (s *bwrapStatus) started(pid int) {
	if s.info == nil && s.json == nil {
		return
	}
	members := []jsonMember{{"child-pid", uint64(pid)}}
	for _, id := range namespaceIDs(pid, s.names) {
		members = append(members, jsonMember{id.name + "-namespace", id.ino})
	}
	if s.info != nil {
		_ = writeBwrapJSON(s.info, infoLayout, members)
		s.info.Close()
		s.info = nil
	}
	if s.json != nil {
		_ = writeBwrapJSON(s.json, statusLayout, members)
	}
}

// exited writes the command's exit status on --json-status-fd.
func (s *bwrapStatus) exited(code int) {
	if s.json != nil {
		_ = writeBwrapJSON(s.json, statusLayout, []jsonMember{{"exit-code", uint64(code)}})
	}
}

// jsonLayout is how bubblewrap lays out one JSON object on a status
// descriptor: what opens it, what separates its members, what closes it.
type jsonLayout struct{ open, sep, close string }

var (
	// infoLayout is --info-fd's: one member a line.
	infoLayout = jsonLayout{"{\n    ", ",\n    ", "\n}\n"}
	// statusLayout is --json-status-fd's: each object on a line of its
	// own, the descriptor holding several.
	statusLayout = jsonLayout{"{ ", ", ", " }\n"}
)

// jsonMember is a member of bubblewrap's status objects: all of them are
// numbers, and their names need no escaping.
type jsonMember struct {
	name  string
	value uint64
}

// writeBwrapJSON writes one object of members to w in layout l, in one
// write.
func writeBwrapJSON(w io.Writer, l jsonLayout, members []jsonMember) error {
	var b strings.Builder
	b.WriteString(l.open)
	for i, m := range members {
		if i > 0 {
			b.WriteString(l.sep)
		}
		fmt.Fprintf(&b, "%q: %d", m.name, m.value)
	}
	b.WriteString(l.close)
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *bwrapStatus) close() {
	for _, f := range []*os.File{s.info, s.json} {
		if f != nil {
			f.Close()
		}
	}
}

// nsID is a namespace by its name and inode.
type nsID struct {
	name string
	ino  uint64
}

// startAndWait runs cmd, passing the signals nsrun gets on to it, as the
// nsrun command does.
func startAndWait(cmd *nsrun.Cmd) error {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return err
	}
	return waitForwarding(cmd, sigs)
}

// bwrapFailureText words a failure to build the sandbox or start the
// command, as bubblewrap words the ones it has.
func bwrapFailureText(err error, name string) string {
	var se *nsrun.SetupError
	if errors.As(err, &se) && (se.Code == nsrun.ExitNotFound || se.Code == nsrun.ExitNotExecutable) {
		why := "Permission denied"
		var errno syscall.Errno
		switch {
		case se.Code == nsrun.ExitNotFound:
			why = "No such file or directory"
		case errors.As(err, &errno):
			why = bwrap.Strerror(errno)
		}
		return fmt.Sprintf("execvp %s: %s", name, why)
	}
	return describe(err)
}

// bwrapDefaultDir is bubblewrap's working directory when --chdir is not
// given: the current directory where the sandbox shows it, else $HOME
// where it shows that, else "/". "" leaves nsrun's default, which is the
// current directory where it is shown.
func bwrapDefaultDir(p *nsrun.Policy, env []string, h bwrapHost) string {
	e, err := p.Effect()
	if err != nil {
		return ""
	}
	shown := func(d string) bool {
		if d == "" || !filepath.IsAbs(d) {
			return false
		}
		host, ok := hostPathOf(e, p, d, true)
		if !ok {
			return false
		}
		mode, err := h.stat(host)
		return err == nil && mode.IsDir()
	}
	if shown(h.cwd) {
		return h.cwd
	}
	// $HOME as bubblewrap's own environment has it after the edits.
	for _, kv := range env {
		if home, ok := strings.CutPrefix(kv, "HOME="); ok && shown(home) {
			return home
		}
	}
	return "/"
}

// hostPathOf is the host path the sandbox shows at d, absolute: false
// where it shows none (a tmpfs, a deny, a file of nsrun's) or, unless
// overlay, an overlay's.
func hostPathOf(e *nsrun.Effect, p *nsrun.Policy, d string, overlay bool) (string, bool) {
	x := e.Explain(d)
	switch {
	case x.Access == nsrun.ReadOnly, x.Access == nsrun.ReadWrite:
	case x.Access == nsrun.Overlay && overlay:
	default:
		return "", false
	}
	r := x.Rule
	if r == nil || r.Path == "/" {
		if p.Root == "" {
			return x.Path, true
		}
		return filepath.Join(p.Root, x.Path), true
	}
	src := r.From
	if src == "" {
		src = r.Path
	}
	rel, err := filepath.Rel(r.Path, x.Path)
	if err != nil {
		return "", false
	}
	return filepath.Join(src, rel), true
}

// takeLocks is --lock-file: a read lock on each file, held by nsrun for
// as long as the sandbox runs (bubblewrap's init holds it; nsrun and
// the sandbox end together). Each DEST is the file the sandbox shows
// there, which must be a host file.
func takeLocks(p *nsrun.Policy, dests []string) error {
	if len(dests) == 0 {
		return nil
	}
	e, err := p.Effect()
	if err != nil {
		return err
	}
	for _, d := range dests {
		abs := filepath.Join("/", d)
		host, ok := hostPathOf(e, p, abs, false)
		if !ok {
			return refuse("--lock-file "+d, "nsrun locks host files only, and the sandbox shows none there")
		}
		if err := lockFile(host, d); err != nil {
			return err
		}
	}
	return nil
}

// bwrapOptions are the options nsrun's bubblewrap mode takes, for
// --help: bubblewrap's own words, and where nsrun takes less, what.
var bwrapOptions = [][2]string{
	{"--help", "Print this help"},
	{"--version", "Print version"},
	{"--args FD", "Parse NUL-separated args from FD"},
	{"--level-prefix", "Prepend e.g. <3> to diagnostic messages"},
	{"--unshare-all", "Unshare every namespace we support by default"},
	{"--share-net", "Retain the network namespace (can only combine with --unshare-all)"},
	{"--unshare-user", "Create new user namespace (nsrun always does)"},
	{"--unshare-user-try", "Create new user namespace if possible (nsrun always does)"},
	{"--unshare-ipc", "Create new ipc namespace (nsrun always does)"},
	{"--unshare-pid", "Create new pid namespace (nsrun always does)"},
	{"--unshare-net", "Create new network namespace"},
	{"--unshare-uts", "Create new uts namespace (nsrun always does)"},
	{"--unshare-cgroup", "Create new cgroup namespace (nsrun always does)"},
	{"--unshare-cgroup-try", "Create new cgroup namespace (nsrun always does)"},
	{"--disable-userns", "Disable further use of user namespaces inside sandbox"},
	{"--assert-userns-disabled", "Fail unless further use of user namespace inside sandbox is disabled"},
	{"--uid UID", "Custom uid in the sandbox (requires --unshare-user)"},
	{"--gid GID", "Custom gid in the sandbox (requires --unshare-user)"},
	{"--hostname NAME", "Custom hostname in the sandbox (requires --unshare-uts)"},
	{"--chdir DIR", "Change directory to DIR"},
	{"--argv0 VALUE", "Set argv[0] to the value VALUE before running the program"},
	{"--clearenv", "Unset all environment variables"},
	{"--setenv VAR VALUE", "Set an environment variable"},
	{"--unsetenv VAR", "Unset an environment variable"},
	{"--lock-file DEST", "Take a lock on DEST while sandbox is running"},
	{"--sync-fd FD", "Keep this fd open while sandbox is running"},
	{"--bind SRC DEST", "Bind mount the host path SRC on DEST"},
	{"--bind-try SRC DEST", "Equal to --bind but ignores non-existent SRC"},
	{"--dev-bind SRC DEST", "Bind mount the host device SRC on DEST under /dev"},
	{"--dev-bind-try SRC DEST", "Equal to --dev-bind but ignores non-existent SRC"},
	{"--ro-bind SRC DEST", "Bind mount the host path SRC readonly on DEST (a device over a file hides it)"},
	{"--ro-bind-try SRC DEST", "Equal to --ro-bind but ignores non-existent SRC"},
	{"--bind-fd FD DEST", "Bind open directory or path fd on DEST"},
	{"--ro-bind-fd FD DEST", "Bind open directory or path fd read-only on DEST"},
	{"--remount-ro DEST", "Remount DEST, a bind or tmpfs, as readonly"},
	{"--overlay-src SRC", "Read files from SRC in the following overlay"},
	{"--overlay RWSRC WORKDIR DEST", "Mount overlayfs on DEST, with RWSRC as the host path for writes and WORKDIR an empty directory on the same filesystem"},
	{"--tmp-overlay DEST", "Mount overlayfs on DEST, with writes going to an invisible tmpfs"},
	{"--ro-overlay DEST", "Mount overlayfs read-only on DEST"},
	{"--proc /proc", "Mount new procfs on /proc"},
	{"--dev /dev", "Mount new dev on /dev"},
	{"--tmpfs DEST", "Mount new tmpfs on DEST"},
	{"--dir DEST", "Create dir at DEST"},
	{"--file FD DEST", "Copy from FD to file DEST (in a --tmpfs)"},
	{"--bind-data FD DEST", "Copy from FD to file which is bind-mounted on DEST (in a --tmpfs)"},
	{"--ro-bind-data FD DEST", "Copy from FD to file which is readonly bind-mounted on DEST (in a --tmpfs)"},
	{"--symlink SRC DEST", "Create symlink at DEST with target SRC"},
	{"--perms OCTAL", "Set permissions of next argument (--tmpfs, --file, --bind-data, --ro-bind-data)"},
	{"--size BYTES", "Set size of next argument (only for --tmpfs)"},
	{"--block-fd FD", "Block on FD until some data to read is available"},
	{"--info-fd FD", "Write information about the running container to FD"},
	{"--json-status-fd FD", "Write container status to FD as multiple JSON documents"},
	{"--new-session", "Create a new terminal session"},
	{"--die-with-parent", "Kills with SIGKILL child process (COMMAND) when bwrap or bwrap's parent dies."},
	{"--as-pid-1", "Do not install a reaper process with PID=1 (nsrun's init)"},
	{"--cap-add CAP", "Add cap CAP when running as privileged user (in the sandbox's user namespace)"},
	{"--cap-drop CAP", "Drop cap CAP when running as privileged user"},
	{"--not-a-security-boundary", "Accepted; nsrun fails hard all the same"},
}

// writeBwrapUsage is --help: bubblewrap's usage line and the options
// nsrun takes.
func writeBwrapUsage(w io.Writer, argv0 string) {
	fmt.Fprintf(w, "usage: %s [OPTIONS...] [--] COMMAND [ARGS...]\n\n", argv0)
	for _, o := range bwrapOptions {
		fmt.Fprintf(w, "    %-28s %s\n", o[0], o[1])
	}
	fmt.Fprintf(w, "\nThis is nsrun %s in bubblewrap's place: other options are refused, and\nnsrun's layers (Landlock, seccomp, namespaces) are added; see nsrun's docs/BWRAP.md.\n", version)
}
