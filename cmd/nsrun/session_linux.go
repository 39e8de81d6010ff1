package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun"
	"github.com/nsrun/nsrun/internal/front"
	"github.com/nsrun/nsrun/internal/session"
	"github.com/nsrun/nsrun/pty"
)

const sessionUsage = "usage: nsrun session start [OPTIONS] NAME | nsrun session list | nsrun session stop [--report FILE] NAME"

// sessionCommand is `nsrun session start|list|stop`; `hold` is the
// process start leaves behind to hold the session.
func sessionCommand(args []string, stdout, stderr *os.File) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "nsrun:", sessionUsage)
		return nsrun.ExitSetup
	}
	switch args[0] {
	case "start":
		return sessionStart(args[1:], stdout, stderr)
	case sessionHoldArg:
		return sessionHold(args[1:])
	case "list":
		return sessionList(stdout, stderr)
	case "stop":
		return sessionStop(args[1:], stderr)
	}
	fmt.Fprintf(stderr, "nsrun: session %s: unknown; %s\n", oneLine(args[0]), sessionUsage)
	return nsrun.ExitSetup
}

const sessionHoldArg = "hold-internal"

// sessionOptions parses `session start`'s options: a one-shot run's, and
// --idle-timeout; the one argument left is the name.
// It returns --report's file too.
func sessionOptions(args []string) (m *merged, name string, idle time.Duration, report string, err error) {
	o, err := parseOptions(args)
	if err != nil {
		return nil, "", 0, "", err
	}
	m, name, idle, err = checkSessionOptions(o)
	return m, name, idle, o.report, err
}

// checkSessionOptions refuses what a session cannot take.
func checkSessionOptions(o *options) (*merged, string, time.Duration, error) {
	if len(o.args) != 1 {
		return nil, "", 0, usagef("session start takes one NAME after its options (%s)", sessionUsage)
	}
	if err := session.CheckName(o.args[0]); err != nil {
		return nil, "", 0, err
	}
	if o.set["tty"] || o.printProf || o.help {
		return nil, "", 0, usagef("session start: --tty and --print-profile are not session settings (--tty is each exec's)")
	}
	if o.report == "-" {
		return nil, "", 0, usagef("session start: --report -: the session's holder has no standard error; name a file")
	}
	m, err := merge(o, os.Environ())
	if err != nil {
		return nil, "", 0, err
	}
	if m.policy.Isolation == nsrun.IsolationLandlock {
		return nil, "", 0, usagef("--isolation landlock: %s", session.NoLandlockOnly)
	}
	if m.killAfter > 0 {
		return nil, "", 0, usagef("--kill-after: not a session setting (--timeout ends the whole session)")
	}
	return m, o.args[0], o.idleTimeout, nil
}

// sessionStart starts the holder in a session of its own, detached from
// the caller's terminal, and returns once it says the session is ready.
func sessionStart(args []string, stdout, stderr *os.File) int {
	if _, _, _, _, err := sessionOptions(args); err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(withFlags(err.Error(), err)))
		return nsrun.ExitSetup
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: session start:", err)
		return nsrun.ExitSetup
	}
	hold := exec.Command("/proc/self/exe", append([]string{"session", sessionHoldArg}, args...)...)
	hold.Args[0] = "nsrun"
	hold.ExtraFiles = []*os.File{w}
	hold.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = hold.Start()
	w.Close()
	if err != nil {
		r.Close()
		fmt.Fprintln(stderr, "nsrun: session start:", err)
		return nsrun.ExitSetup
	}
	// The holder's start warnings come first, one "W TEXT" line each,
	// then "CODE NAME-OR-MESSAGE".
	br := bufio.NewReader(r)
	line, _ := br.ReadString('\n')
	for w, ok := strings.CutPrefix(line, "W "); ok; w, ok = strings.CutPrefix(line, "W ") {
		fmt.Fprintln(stderr, "nsrun: warning:", strings.TrimSuffix(w, "\n"))
		line, _ = br.ReadString('\n')
	}
	r.Close()
	code, msg, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	if line == "" {
		code, msg = "125", "the session's holder ended before the session was ready"
	}
	if code == "0" && ok {
		_ = hold.Process.Release()
		fmt.Fprintln(stdout, msg)
		return 0
	}
	_ = hold.Wait()
	fmt.Fprintln(stderr, "nsrun:", oneLine(msg))
	n, _ := strconv.Atoi(code)
	if n == 0 {
		n = nsrun.ExitSetup
	}
	return n
}

// holder is the process that holds a session: its sandbox (through the
// library) and its control socket.
type holder struct {
	s       *nsrun.Session
	l       *session.Listener
	policy  string
	running atomic.Int32
	last    atomic.Int64 // unix nanoseconds of the last command's end
	stop    chan struct{}
	once    sync.Once
	// final is closed once the session has ended and report holds its
	// report (JSON), which a stop request is answered with.
	final    chan struct{}
	report   []byte
	stoppers sync.WaitGroup
	// started counts the warnings session start printed; ended are those
	// of the end, which stop prints.
	started int
	ended   []string
}

// sessionHold is the holder's life: it claims the name, starts the
// session, says it is ready on descriptor 3 and serves clients until the
// session is stopped or times out.
func sessionHold(args []string) int {
	ready := os.NewFile(3, "ready")
	say := func(code int, msg string) {
		fmt.Fprintf(ready, "%d %s\n", code, msg)
	}
	m, name, idle, reportName, err := sessionOptions(args)
	if err != nil {
		say(nsrun.ExitSetup, err.Error())
		return nsrun.ExitSetup
	}
	var report *reportFile
	if reportName != "" {
		if report, err = openReport(reportName, nil); err != nil {
			say(nsrun.ExitSetup, fmt.Sprintf("--report %s: %v", reportName, err))
			return nsrun.ExitSetup
		}
	}
	l, err := session.Listen(name)
	if err != nil {
		say(nsrun.ExitSetup, err.Error())
		return nsrun.ExitSetup
	}
	defer l.Close()
	// The sessions directory is out of the session's sight, whatever the
	// rules show: a read-only view of a socket still connects.
	m.policy.Rules = append(m.policy.Rules, nsrun.Rule{Path: l.Dir, Access: nsrun.Deny})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if m.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, m.timeout)
		defer cancel()
	}
	s, err := nsrun.StartSession(ctx, m.policy)
	if err != nil {
		say(nsrun.ExitCode(err), describe(err))
		return nsrun.ExitCode(err)
	}
	h := &holder{s: s, l: l, stop: make(chan struct{}), final: make(chan struct{}), policy: describePolicy(m.policy)}
	h.last.Store(time.Now().UnixNano())
	_ = l.Describe(h.info())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP)
	signal.Ignore(unix.SIGPIPE)
	for _, w := range s.Warnings() {
		fmt.Fprintf(ready, "W %s\n", strings.ReplaceAll(w, "\n", " "))
		h.started++
	}
	go h.serve()
	say(0, name)
	ready.Close()
	var tick <-chan time.Time
	if idle > 0 {
		t := time.NewTicker(min(idle/4+time.Millisecond, time.Second))
		defer t.Stop()
		tick = t.C
	}
	reason := h.wait(sigs, ctx, tick, idle)
	_ = s.Close()
	// The session is gone: what ran in it, what it killed, what it used.
	rep := s.Report()
	if rep.Session != nil && reason != "" {
		rep.Session.Ended = reason
	}
	h.report, _ = json.Marshal(rep)
	if all := s.Warnings(); len(all) > h.started {
		h.ended = all[h.started:]
	}
	close(h.final)
	if report != nil {
		_ = report.write(rep)
	}
	// A stop request is answered before the socket goes.
	h.stoppers.Wait()
	return 0
}

// wait waits for the session's end and says why it ends: "" when it
// ended by itself (the library says so).
func (h *holder) wait(sigs <-chan os.Signal, ctx context.Context, tick <-chan time.Time, idle time.Duration) string {
	for {
		select {
		case <-h.stop:
			return "stop"
		case <-sigs:
			return "signal"
		case <-ctx.Done():
			return "timeout"
		case <-h.s.Done():
			return ""
		case <-tick:
			if h.running.Load() == 0 && time.Since(time.Unix(0, h.last.Load())) >= idle {
				return "idle-timeout"
			}
		}
	}
}

func (h *holder) info() *session.Info {
	i := &session.Info{Name: h.l.Name, Started: h.s.Started().Unix(), Policy: h.policy, Running: int(h.running.Load()), Holder: os.Getpid()}
	if pid := session.SessionInit(); pid > 0 {
		i.Init = pid
		i.Processes, i.RSSKiB = session.PIDNamespaceProcs(pid)
	}
	return i
}

func (h *holder) serve() {
	for {
		p, err := h.l.Accept()
		if err != nil {
			return
		}
		go h.handle(p)
	}
}

// handle serves one client: one request, and for an exec the signals
// that follow it; a client that goes away has its command killed.
func (h *holder) handle(p *session.Peer) {
	defer p.Close()
	req, files, err := p.Recv()
	if err != nil {
		return
	}
	switch req.Op {
	case "stop":
		h.stoppers.Add(1)
		defer h.stoppers.Done()
		h.once.Do(func() { close(h.stop) })
		<-h.final
		_ = p.Send(&session.Reply{Report: h.report, Warnings: h.ended})
	case "info":
		_ = p.Send(&session.Reply{Info: h.info()})
	case "exec":
		h.running.Add(1)
		defer func() {
			h.last.Store(time.Now().UnixNano())
			h.running.Add(-1)
		}()
		_ = p.Send(h.exec(p, req, files))
	default:
		_ = p.Send(&session.Reply{Code: nsrun.ExitSetup, Error: "unknown request " + req.Op})
	}
	for _, f := range files {
		f.Close()
	}
}

func (h *holder) exec(p *session.Peer, req *session.Request, files []*os.File) *session.Reply {
	if len(files) != 3 || len(req.Args) == 0 {
		return &session.Reply{Code: nsrun.ExitSetup, Error: "exec: a command and three streams are needed"}
	}
	// The session's report says whom each command ran for.
	ctx := front.With(context.Background(), &front.Settings{For: session.Describe(p.PID)})
	cmd := h.s.CommandContext(ctx, req.Args[0], req.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	cmd.Dir = req.Dir
	if req.TTY {
		cmd.TTY = nsrun.TTYAlways
	}
	if len(req.Env) > 0 {
		cmd.Env = overEnv(h.s.Environ(), req.Env)
	}
	if err := cmd.Start(); err != nil {
		reply := &session.Reply{Code: nsrun.ExitCode(err), Error: describe(err)}
		if req.Report {
			reply.Report, _ = json.Marshal(cmd.Report())
		}
		return reply
	}
	for _, f := range files {
		f.Close()
	}
	go func() {
		for {
			r, fs, err := p.Recv()
			for _, f := range fs {
				f.Close()
			}
			if err != nil {
				_ = cmd.Signal(unix.SIGKILL) // the client is gone
				return
			}
			if r.Op == "signal" && r.Signal > 0 {
				_ = cmd.Signal(unix.Signal(r.Signal))
			}
		}
	}()
	reply := &session.Reply{Code: nsrun.ExitCode(cmd.Wait())}
	if req.Report {
		reply.Report, _ = json.Marshal(cmd.Report())
	}
	return reply
}

// overEnv sets each K=V of over in env.
func overEnv(env, over []string) []string {
	out := append([]string{}, env...)
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		kept := out[:0]
		for _, e := range out {
			if ek, _, _ := strings.Cut(e, "="); ek != k {
				kept = append(kept, e)
			}
		}
		out = append(kept, kv)
	}
	return out
}

// describePolicy is the one-line summary `session list` shows.
func describePolicy(p *nsrun.Policy) string {
	parts := []string{}
	for _, r := range p.Rules {
		parts = append(parts, "--"+r.Option()+" "+r.Path)
	}
	net := map[nsrun.Net]string{nsrun.NetNone: "none", nsrun.NetHost: "host"}[p.Net]
	if net == "" {
		net = "filtered"
	}
	parts = append(parts, "--net "+net)
	if p.Memory > 0 {
		parts = append(parts, fmt.Sprintf("--memory %d", p.Memory))
	}
	return strings.Join(parts, " ")
}

func sessionList(stdout, stderr *os.File) int {
	dir, err := session.Dir()
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: session list:", err)
		return 1
	}
	session.RemoveStale(dir)
	fmt.Fprintf(stdout, "%-20s %8s %6s %10s %s\n", "NAME", "AGE", "PROCS", "RSS", "POLICY")
	for _, name := range session.Names(dir) {
		c, err := session.Dial(name)
		if err != nil {
			continue
		}
		var info *session.Info
		if c.Send(&session.Request{Op: "info"}) == nil {
			if r, err := c.Recv(); err == nil {
				info = r.Info
			}
		}
		c.Close()
		if info == nil {
			continue
		}
		age := time.Since(time.Unix(info.Started, 0)).Round(time.Second)
		fmt.Fprintf(stdout, "%-20s %8s %6d %7dKiB %s\n", info.Name, age, info.Processes, info.RSSKiB, oneLine(info.Policy))
	}
	return 0
}

// sessionStop is `session stop [--report FILE] NAME`: it returns once the
// session is gone, with its report written.
func sessionStop(args []string, stderr *os.File) int {
	var reportName string
	if len(args) == 3 && args[0] == "--report" {
		reportName, args = args[1], args[2:]
	} else if len(args) == 2 {
		if v, ok := strings.CutPrefix(args[0], "--report="); ok {
			reportName, args = v, args[1:]
		}
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "nsrun:", sessionUsage)
		return nsrun.ExitSetup
	}
	name := args[0]
	var report *reportFile
	if reportName != "" {
		var err error
		if report, err = openReport(reportName, stderr); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", reportName, oneLine(err.Error()))
			return nsrun.ExitSetup
		}
	}
	c, err := session.Dial(name)
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: session stop:", oneLine(err.Error()))
		return 1
	}
	defer c.Close()
	if err := c.Send(&session.Request{Op: "stop"}); err != nil {
		fmt.Fprintln(stderr, "nsrun: session stop:", err)
		return 1
	}
	r, err := c.Recv()
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: session stop:", err)
		return 1
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(stderr, "nsrun: warning:", w)
	}
	// The holder answers once the session has ended; its lock goes last.
	waitGone(name)
	if report != nil {
		var rep nsrun.Report
		if err := json.Unmarshal(r.Report, &rep); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: the holder's report: %v\n", reportName, err)
			return 1
		}
		if err := report.write(&rep); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", reportName, err)
			return 1
		}
	}
	return 0
}

// waitGone waits (a few seconds at most) for the session's holder to have
// removed everything.
func waitGone(name string) {
	dir, err := session.Dir()
	if err != nil {
		return
	}
	for range 500 {
		if _, err := os.Lstat(dir + "/" + name + ".lock"); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const execUsage = "usage: nsrun exec NAME [--env K=V]... [--chdir DIR] [--tty auto|always|never] [--report FILE] [--] COMMAND [ARG...]"

// execCommand is `nsrun exec NAME ... -- COMMAND`: the command runs in
// the session with this process's streams (a terminal's relayed through
// a pipe), and this process exits as it did.
func execCommand(args []string, stdin, stdout, stderr *os.File) int {
	name, req, local, err := parseExec(args)
	if err != nil {
		fmt.Fprintln(stderr, "nsrun:", oneLine(err.Error()))
		return nsrun.ExitSetup
	}
	var report *reportFile
	if req.Report {
		if report, err = openReport(local.report, stderr); err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", local.report, oneLine(err.Error()))
			return nsrun.ExitSetup
		}
	}
	c, err := session.Dial(name)
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: exec:", oneLine(err.Error()))
		return nsrun.ExitSetup
	}
	defer c.Close()
	var copies sync.WaitGroup
	var files [3]*os.File
	var closeAfter []*os.File
	var t *execTerminal
	if wantPTY(local.tty, stdin, stdout) {
		sendSig := func(sig unix.Signal) { _ = c.Send(&session.Request{Op: "signal", Signal: int(sig)}) }
		t, err = newExecTerminal(stdin, stdout, &copies, sendSig)
		if err != nil {
			fmt.Fprintln(stderr, "nsrun: exec: terminal:", err)
			return nsrun.ExitSetup
		}
		defer t.restore()
		req.TTY = true
		files, closeAfter = [3]*os.File{t.slave, t.slave, t.slave}, []*os.File{t.slave}
	} else {
		files, closeAfter = relayTerminals([3]*os.File{stdin, stdout, stderr}, &copies)
	}
	err = c.Send(req, files[:]...)
	for _, f := range closeAfter {
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: exec:", err)
		return nsrun.ExitSetup
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwardedSignals...)
	go func() {
		for sig := range sigs {
			if s, ok := sig.(syscall.Signal); ok && s == syscall.SIGWINCH {
				if t != nil {
					resizeFrom(stdin, stdout, t.master)
				}
			} else if ok {
				_ = c.Send(&session.Request{Op: "signal", Signal: int(s)})
			}
		}
	}()
	r, err := c.Recv()
	if err != nil {
		fmt.Fprintln(stderr, "nsrun: exec: the session ended")
		return nsrun.ExitSetup
	}
	waitCopies(&copies, 200*time.Millisecond)
	if r.Error != "" {
		fmt.Fprintln(stderr, "nsrun:", oneLine(r.Error))
	}
	if report != nil {
		var rep nsrun.Report
		err := json.Unmarshal(r.Report, &rep)
		if err == nil {
			err = report.write(&rep)
		}
		if err != nil {
			fmt.Fprintf(stderr, "nsrun: --report %s: %v\n", local.report, err)
			if r.Code == 0 {
				return nsrun.ExitSetup
			}
		}
	}
	return r.Code
}

// parseExec reads exec's few options; every other is a session's, and
// refused: an exec cannot change what the session enforces.
func parseExec(args []string) (string, *session.Request, execLocal, error) {
	var local execLocal
	name, req, err := parseExecOpts(args, &local)
	return name, req, local, err
}

// execLocal are exec's options that stay with the client.
type execLocal struct {
	tty    nsrun.TTYMode
	report string // --report FILE
}

// parseExecOpts is parseExec; --tty and --report go to local.
func parseExecOpts(args []string, local *execLocal) (string, *session.Request, error) {
	if len(args) == 0 {
		return "", nil, usagef("%s", execUsage)
	}
	name, rest := args[0], args[1:]
	if err := session.CheckName(name); err != nil {
		return "", nil, err
	}
	req := &session.Request{Op: "exec"}
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		opt, val, hasVal := strings.Cut(a, "=")
		take := func() (string, error) {
			if hasVal {
				rest = rest[1:]
				return val, nil
			}
			if len(rest) < 2 {
				return "", usagef("exec: %s needs a value", opt)
			}
			v := rest[1]
			rest = rest[2:]
			return v, nil
		}
		switch opt {
		case "--env":
			v, err := take()
			if err != nil {
				return "", nil, err
			}
			if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
				return "", nil, usagef("exec: --env %q: want K=V", v)
			}
			req.Env = append(req.Env, v)
		case "--report":
			v, err := take()
			if err != nil {
				return "", nil, err
			}
			local.report, req.Report = v, true
		case "--chdir":
			v, err := take()
			if err != nil {
				return "", nil, err
			}
			if !strings.HasPrefix(v, "/") {
				return "", nil, usagef("exec: --chdir %q: want an absolute directory inside the sandbox", v)
			}
			req.Dir = v
		case "--tty":
			v, err := take()
			if err != nil {
				return "", nil, err
			}
			m, err := nsrun.ParseTTYMode(v)
			if err != nil {
				return "", nil, usagef("exec: --tty %q: %v", v, err)
			}
			local.tty = m
		default:
			return "", nil, usagef("exec: %s is refused: a command runs under exactly its session's policy; give sandbox options to `nsrun session start` (%s)", opt, execUsage)
		}
	}
	if len(rest) == 0 || rest[0] == "" {
		return "", nil, usagef("exec: no command given (%s)", execUsage)
	}
	req.Args = rest
	return name, req, nil
}

// relayTerminals passes each stream as it is, but a terminal: the caller's
// terminal never enters the sandbox, so a pipe stands for it, copied here.
// It returns the descriptors to send and this process's copies of the
// command's ends, to close once sent.
func relayTerminals(streams [3]*os.File, copies *sync.WaitGroup) ([3]*os.File, []*os.File) {
	var out [3]*os.File
	var sent []*os.File
	for i, f := range streams {
		out[i] = f
		if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			continue
		}
		if i == 0 {
			go func() {
				_, _ = io.Copy(pw, f)
				pw.Close()
			}()
			out[i] = pr
			sent = append(sent, pr)
			continue
		}
		copies.Add(1)
		go func() {
			defer copies.Done()
			_, _ = io.Copy(f, pr)
		}()
		out[i] = pw
		sent = append(sent, pw)
	}
	return out, sent
}

// waitCopies waits for the relayed output, no longer than d after the
// command ended: what it left in the background may hold the pipes.
func waitCopies(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// wantPTY says whether the command gets a pseudo-terminal of its own: as
// asked, or (auto) when both stdin and stdout are terminals.
func wantPTY(mode nsrun.TTYMode, stdin, stdout *os.File) bool {
	switch mode {
	case nsrun.TTYAlways:
		return true
	case nsrun.TTYNever:
		return false
	}
	return pty.IsTerminal(int(stdin.Fd())) && pty.IsTerminal(int(stdout.Fd()))
}

// execTerminal is the pty made for a command in a session: its slave goes
// to the command, its master is relayed here to the caller's streams, and
// the caller's terminal, if stdin is one, is in raw mode meanwhile.
type execTerminal struct {
	master, slave *os.File
	stdin         *os.File
	saved         *pty.Mode
}

func newExecTerminal(stdin, stdout *os.File, copies *sync.WaitGroup, signal func(unix.Signal)) (*execTerminal, error) {
	master, slave, err := pty.Open("/dev/ptmx")
	if err != nil {
		return nil, err
	}
	t := &execTerminal{master: master, slave: slave, stdin: stdin}
	if mode, err := pty.GetMode(int(stdin.Fd())); err == nil {
		// The command's terminal starts as the caller's is set; the
		// caller's is raw meanwhile, so every key reaches the command's.
		_ = pty.SetMode(int(slave.Fd()), mode)
		raw := pty.Raw(*mode)
		if pty.SetMode(int(stdin.Fd()), &raw) == nil {
			t.saved = mode
		}
	}
	resizeFrom(stdin, stdout, slave)
	go t.relayKeys(stdout, signal)
	copies.Add(1)
	go func() {
		defer copies.Done()
		_, _ = io.Copy(stdout, master) // EIO once no process holds the slave
	}()
	return t, nil
}

// relayKeys copies the caller's keys to the command's pty, but a suspend
// key the pty cannot act on (session.FindSuspend): on it the command and
// this process stop, as a one-shot --tty run does on Ctrl-Z.
func (t *execTerminal) relayKeys(stdout *os.File, signal func(unix.Signal)) {
	buf := make([]byte, 4096)
	for {
		n, err := t.stdin.Read(buf)
		keys := buf[:n]
		for len(keys) > 0 {
			i := -1
			if t.saved != nil {
				i = session.FindSuspend(t.master, int(t.stdin.Fd()), keys)
			}
			if i < 0 {
				_, _ = t.master.Write(keys)
				break
			}
			_, _ = t.master.Write(keys[:i])
			t.suspend(stdout, signal)
			keys = keys[i+1:]
		}
		if err != nil {
			return
		}
	}
}

// suspend stops the command's process group and this process, with the
// caller's terminal given back meanwhile; once continued (fg), it takes
// the terminal again and continues the command, which is told to redraw.
func (t *execTerminal) suspend(stdout *os.File, signal func(unix.Signal)) {
	signal(unix.SIGSTOP)
	t.restore()
	runtime.LockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGTSTP) // stops before it returns
	runtime.UnlockOSThread()
	raw := pty.Raw(*t.saved)
	_ = pty.SetMode(int(t.stdin.Fd()), &raw) // from the background, SIGTTOU stops this until fg
	resizeFrom(t.stdin, stdout, t.master)
	signal(unix.SIGCONT)
	signal(unix.SIGWINCH)
}

func (t *execTerminal) restore() {
	if t.saved != nil {
		_ = pty.SetMode(int(t.stdin.Fd()), t.saved)
	}
}

// resizeFrom copies the size of the caller's terminal to the command's
// (through either end of its pty).
func resizeFrom(stdin, stdout, end *os.File) {
	for _, f := range []*os.File{stdout, stdin} {
		if rows, cols, err := pty.Size(int(f.Fd())); err == nil {
			_ = pty.SetSize(int(end.Fd()), rows, cols)
			return
		}
	}
}
