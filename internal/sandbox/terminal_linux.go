package sandbox

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/pty"
)

// termPlan is what a sandbox's standard streams become with a pty of its
// own: a pure function of the mode and of which streams are terminals.
type termPlan struct {
	pty      bool
	replace  [3]bool // the payload's streams that are the pty's slave
	terminal int     // the caller's terminal: the first stream that is one, or -1
	keys     bool    // the terminal's keys are relayed (raw modes, job control)
	data     bool    // Stdin, not a terminal, is relayed as typed input
	output   int     // the stream the pty's output goes to, or -1
}

func planTerminal(mode TTYMode, isTerm [3]bool) termPlan {
	t := termPlan{terminal: -1, output: -1}
	if mode == TTYNever {
		return t
	}
	for i := range isTerm {
		if isTerm[i] {
			t.terminal = i
			break
		}
	}
	if mode == TTYAlways {
		t.pty, t.replace, t.output = true, [3]bool{true, true, true}, 1
		t.keys, t.data = isTerm[0], !isTerm[0]
		return t
	}
	if t.terminal < 0 {
		return t
	}
	// Only the streams that are the terminal change: a pipe or a file
	// stays one, so `nsrun -- make 2>log` keeps its log. What the pty
	// shows goes back to the terminal, on stdout where it is one (the
	// echo of keys typed for a payload whose output is redirected, too).
	t.pty, t.replace, t.keys, t.output = true, isTerm, true, t.terminal
	if isTerm[1] {
		t.output = 1
	} else if isTerm[2] {
		t.output = 2
	}
	return t
}

// terminal is a sandbox's pseudo-terminal as nsrun holds it: the master,
// the caller's terminal it relays, and the job control between the two.
// The caller's terminal never enters the sandbox.
type terminal struct {
	plan   termPlan
	tty    int       // the caller's terminal, -1 if none
	orig   *pty.Mode // its modes as nsrun got it in the foreground, restored at the end
	size   WindowSize
	stdin  io.Reader // for plan.data
	stdout io.Writer

	sock, peer *os.File // the socket the init sends the master over: nsrun's end, the init's
	slave      *os.File // Landlock only: the slave, until the stage has it
	slavePath  string   // Landlock only: its name, the one terminal the rules grant

	master  *os.File
	out     *pty.Output
	in      *pty.Input
	queries *pty.Queries // the payload's queries to the caller's terminal, nil when nsrun does not read it
	control func(byte)

	// quit ends follow, which closes followed once its signals are
	// stopped. quit is set and taken under mu.
	quit     chan struct{}
	followed chan struct{}

	mu    sync.Mutex
	begun bool
	raw   bool // the caller's terminal is in raw modes, set by nsrun
	// resumed counts the continues from stopSelf that event already acted
	// on: the SIGCONT behind each reaches follow too, and passing it on
	// again would continue the payload twice (vim loses output to the
	// second SIGCONT's handler).
	resumed  int
	notified bool // follow gets SIGCONT
	// sent is the size the pty was last given by nsrun: the caller's
	// size is copied only when it differs, so that a size the payload
	// set itself (stty rows) stays until the caller's window changes.
	sent WindowSize
}

// newTerminal returns the sandbox's pty, or nil when it gets none. Without
// an init (a.Direct, Landlock only) the pty comes from the host's
// /dev/ptmx, here, instead of the sandbox's devpts.
func newTerminal(a *Attr) (*terminal, error) {
	var files [3]*os.File
	var isTerm [3]bool
	for i, s := range []any{a.Stdin, a.Stdout, a.Stderr} {
		if f, ok := s.(*os.File); ok && f != nil {
			files[i], isTerm[i] = f, pty.IsTerminal(int(f.Fd()))
		}
	}
	plan := planTerminal(a.TTY, isTerm)
	if !plan.pty {
		return nil, nil
	}
	t := &terminal{plan: plan, tty: -1, size: a.WindowSize, stdin: a.Stdin, stdout: a.Stdout}
	if plan.terminal >= 0 {
		t.tty = int(files[plan.terminal].Fd())
		// In the background, the modes are the shell's own (its line
		// editor's, say), not the ones it gives its jobs: they are read
		// once nsrun is in the foreground, and the pty starts with the
		// kernel's defaults.
		if fg, _ := t.observe(); fg {
			t.orig, _ = pty.GetMode(t.tty)
		}
		if t.size == (WindowSize{}) {
			if rows, cols, err := pty.Size(t.tty); err == nil {
				t.size = WindowSize{Rows: rows, Cols: cols}
			}
		}
	}
	if plan.output >= 0 && files[plan.output] != nil {
		out := int(files[plan.output].Fd())
		t.stdout = pty.FDWriter(out)
		if plan.keys && sameTerminal(out, t.tty) {
			t.queries = &pty.Queries{}
			t.stdout = t.queries.Writer(t.stdout)
		}
	} else if t.stdout == nil {
		t.stdout = io.Discard
	}
	if !a.Direct {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("terminal: socketpair: %w", err)
		}
		t.sock, t.peer = os.NewFile(uintptr(fds[0]), "pty socket"), os.NewFile(uintptr(fds[1]), "pty socket")
		t.sent = t.size // the init gives its pty this size
		return t, nil
	}
	master, slave, err := pty.Open("/dev/ptmx")
	if err != nil {
		return nil, &Error{Code: launch.ExitSetup, Op: "terminal", Err: err}
	}
	t.slave = slave
	if t.master, err = pty.NonBlocking(master); err == nil {
		t.slavePath, err = pty.SlavePath(slave)
	}
	if err == nil {
		err = t.startModes(int(slave.Fd()))
	}
	if err != nil {
		t.close()
		return nil, &Error{Code: launch.ExitSetup, Op: "terminal", Err: err}
	}
	return t, nil
}

// startModes gives a new pty the caller terminal's modes and size, as ssh
// does, so erase and interrupt keys, UTF-8 input and the like stay the
// user's own.
func (t *terminal) startModes(fd int) error {
	if t.orig != nil {
		if err := pty.SetMode(fd, t.orig); err != nil {
			return fmt.Errorf("set the pty's modes: %w", err)
		}
	}
	if t.size != (WindowSize{}) {
		if err := pty.SetSize(fd, t.size.Rows, t.size.Cols); err != nil {
			return fmt.Errorf("set the pty's size: %w", err)
		}
		t.sent = t.size
	}
	return nil
}

// spec is what the init needs to allocate the pty (full isolation).
func (t *terminal) spec(foreground bool) *launch.TTYSpec {
	s := &launch.TTYSpec{Foreground: foreground, Rows: t.size.Rows, Cols: t.size.Cols}
	for i, r := range t.plan.replace {
		if r {
			s.Streams |= 1 << i
		}
	}
	if t.orig != nil {
		s.Mode = pty.EncodeMode(*t.orig)
	}
	return s
}

// streams are the Cmd's streams with those the pty replaces left out: the
// sandbox gets /dev/null there (the init) or the slave (giveSlave).
func (t *terminal) streams(in io.Reader, out, errOut io.Writer) (io.Reader, io.Writer, io.Writer) {
	if t == nil {
		return in, out, errOut
	}
	if t.plan.replace[0] {
		in = nil
	}
	if t.plan.replace[1] {
		out = nil
	}
	if t.plan.replace[2] {
		errOut = nil
	}
	return in, out, errOut
}

// giveSlave puts the slave in place of the replaced streams of the
// Landlock-only stage, which becomes the payload.
func (t *terminal) giveSlave(s *stdio) {
	if t == nil || t.slave == nil {
		return
	}
	for i, r := range t.plan.replace {
		if r {
			s.fds[i] = t.slave
		}
	}
}

// stageAttr makes the Landlock-only stage a session leader with the slave
// as its controlling terminal (the first stream that is the slave).
func (t *terminal) stageAttr(sys *syscall.SysProcAttr) {
	for i, r := range t.plan.replace {
		if r {
			sys.Setsid, sys.Setctty, sys.Ctty = true, true, i
			return
		}
	}
}

// started closes what the sandbox has its own copy of now.
func (t *terminal) started() {
	if t == nil {
		return
	}
	if t.peer != nil {
		t.peer.Close()
		t.peer = nil
	}
	if t.slave != nil {
		t.slave.Close()
		t.slave = nil
	}
}

// begin starts the relay once the payload runs: the master arrives (from
// the init), output flows, the caller's terminal follows job control.
// control tells the payload's supervisor a ctl byte.
func (t *terminal) begin(control func(byte)) error {
	if t.sock != nil {
		m, err := pty.RecvFD(int(t.sock.Fd()), "pty master")
		t.sock.Close()
		t.sock = nil
		if err == nil {
			t.master, err = pty.NonBlocking(m)
		}
		if err != nil {
			return &Error{Code: launch.ExitSetup, Op: "terminal", Err: err}
		}
	}
	t.control = control
	t.out = pty.StartOutput(t.master, t.stdout)
	if t.plan.data {
		go t.relayData()
	}
	_, jobs := t.observe()
	t.mu.Lock()
	if jobs {
		t.quit, t.followed = make(chan struct{}), make(chan struct{})
		go t.follow(t.quit)
	}
	t.begun = true
	t.mu.Unlock()
	t.event(jobStart, 0)
	if t.plan.keys {
		var seen func([]byte)
		if t.queries != nil {
			seen = t.queries.Input
		}
		in, err := pty.StartInput(t.tty, t.master, t.mayRead, seen)
		if err != nil {
			return &Error{Code: launch.ExitSetup, Op: "terminal: relay keys", Err: err}
		}
		t.mu.Lock()
		t.in = in
		t.mu.Unlock()
	}
	return nil
}

// resync is syncSize under the terminal's lock, for the callers that do
// not hold it: follow and Signal(SIGWINCH) run at once.
func (t *terminal) resync() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.syncSize()
}

// syncSize copies the caller's terminal's size to the pty when it is not
// the one nsrun gave it last. Called with t.mu held.
func (t *terminal) syncSize() error {
	if t.tty < 0 || t.master == nil {
		return nil
	}
	rows, cols, err := pty.Size(t.tty)
	if err != nil {
		return err
	}
	if (WindowSize{Rows: rows, Cols: cols}) == t.sent {
		return nil
	}
	if err := pty.SetSize(int(t.master.Fd()), rows, cols); err != nil {
		return err
	}
	t.sent = WindowSize{Rows: rows, Cols: cols}
	return nil
}

// relayData copies Stdin into the pty as typed input, then ends it as the
// pty's line discipline understands (TTYAlways without a terminal on
// stdin). Like exec.Cmd's copy of a non-file Stdin, it is not waited for.
func (t *terminal) relayData() {
	var last byte
	sent := false
	if t.stdin != nil {
		buf := make([]byte, 32<<10)
		for {
			n, err := t.stdin.Read(buf)
			if n > 0 {
				if _, werr := t.master.Write(buf[:n]); werr != nil {
					return
				}
				last, sent = buf[n-1], true
			}
			if err != nil {
				break
			}
		}
	}
	m, err := pty.GetMode(int(t.master.Fd()))
	if err != nil {
		return
	}
	if eof := pty.EOFBytes(m.Lflag&unix.ICANON != 0, m.Cc[unix.VEOF], sent, last); eof != nil {
		_, _ = t.master.Write(eof)
	}
}

// finish ends the relay after the payload: keys stop, the output is
// drained (until the last slave closes, or it has been quiet a moment),
// and the caller's terminal gets its modes back. It returns the first
// error writing the output.
func (t *terminal) finish() error {
	if t == nil {
		return nil
	}
	t.stopKeys()
	var err error
	if t.out != nil {
		err = t.out.Drain(100*time.Millisecond, 2*time.Second)
	}
	t.absorbAnswers()
	t.stopFollow()
	t.mu.Lock()
	t.restore()
	t.close()
	t.mu.Unlock()
	return err
}

// answerWait is how long after a query its answer may come: a terminal
// over a slow link (ssh across the world) answers within it.
const answerWait = 500 * time.Millisecond

// absorbAnswers keeps the answers to the payload's last queries from the
// next reader of the caller's terminal (its shell would take them as typed
// input: a title report types a line the payload chose). When answers are
// awaited, nsrun reads the terminal on, in the raw modes it holds it in,
// until they have come or answerWait has passed since the last query, and
// drops them; it reads nothing past the last one. A key typed meanwhile
// ends the wait and is put back where the kernel allows it (TIOCSTI).
// Without queries awaited it costs nothing.
func (t *terminal) absorbAnswers() {
	if t.queries == nil {
		return
	}
	t.mu.Lock()
	raw := t.raw
	t.mu.Unlock()
	n, asked := t.queries.Awaited()
	deadline := asked.Add(answerWait)
	if !raw || n == 0 || !time.Now().Before(deadline) {
		return
	}
	held, _ := pty.Absorb(t.tty, t.queries, deadline, func() bool {
		fg, jobs := t.observe()
		return fg || !jobs
	})
	// Where the kernel refuses TIOCSTI the key is lost (docs/MANUAL.md says
	// so); there is no one to tell at this point.
	_ = pty.GiveBack(t.tty, held)
}

// sameTerminal reports whether the descriptors a and b are one terminal.
func sameTerminal(a, b int) bool {
	if a == b {
		return true
	}
	var sa, sb unix.Stat_t
	return unix.Fstat(a, &sa) == nil && unix.Fstat(b, &sb) == nil && sa.Rdev == sb.Rdev && sa.Mode&unix.S_IFMT == unix.S_IFCHR
}

// stopKeys ends the key relay and job control, as soon as the payload has
// ended: keys typed from then on stay in the caller's terminal for its
// shell (absorbAnswers puts back any it reads).
func (t *terminal) stopKeys() {
	if t == nil {
		return
	}
	t.mu.Lock()
	in := t.in
	t.in = nil
	t.begun = false
	t.mu.Unlock()
	if in != nil {
		in.Stop()
	}
}

// close releases the descriptors (a pty's programs get a hangup). Once
// the relay runs, it is called with t.mu held (Resize looks at master).
func (t *terminal) close() {
	for _, f := range []**os.File{&t.sock, &t.peer, &t.slave, &t.master} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

// resize sets the pty's size; the payload gets SIGWINCH when it changes.
func (t *terminal) resize(ws WindowSize) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.master == nil {
		return ErrNoPTY
	}
	if err := pty.SetSize(int(t.master.Fd()), ws.Rows, ws.Cols); err != nil {
		return err
	}
	t.sent = ws
	return nil
}
