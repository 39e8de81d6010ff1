package rawinit

import (
	"bytes"
	"fmt"

	"github.com/nsrun/nsrun/internal/launch"
	"strconv"
	"strings"
	"syscall"
)

// opCode says what one operation does.
type opCode uint8

const (
	// opSys makes the system call Nr with Args; its result goes to
	// register Dst (-1: none). An errno in OK counts as success (the
	// register gets -1); errno Skip jumps to To; any other fails the step.
	opSys opCode = iota + 1
	// opCmp compares (word at Args[0] & Args[1]) with Args[2], Args[3]
	// bytes wide (4 or 8). With Eq it acts when they are equal, else when
	// they differ: it jumps to To, or fails with errno Args[4] if To < 0.
	opCmp
	// opJumpReg jumps to To when register Args[0] is non-zero.
	opJumpReg
	// opJump jumps to To.
	opJump
	// opStore32 stores register Args[0] at Args[1] as an int32.
	opStore32
	// opLoad32 loads the int32 at Args[0] into register Dst.
	opLoad32
	// opExit ends the process with status Args[0].
	opExit
	// opPayload starts the payload's side of a clone: signal handlers
	// reset and the mask of the thread that cloned restored; from here a
	// failure is written to the descriptor in register Args[0] (the exec
	// pipe) and the process exits 127.
	opPayload
	// opExecWait reads the exec pipe in register Args[0]: end of file
	// means the payload executed; else the payload's failure becomes this
	// process's.
	opExecWait
	// opStarted reports the payload started: pid in register Args[0],
	// its pidfd in register Args[1].
	opStarted
	// opVfork clones the payload with flags Args[0] (CLONE_VM|CLONE_VFORK
	// among them) and parent_tid Args[1] on a stack of its own; the
	// payload runs from op To, the init goes on with its pid in Dst.
	opVfork
	// opSupervise is pid 1's loop: payload pid in register Args[0], a
	// signalfd in register Args[1], the socket factory in Args[2] and
	// Args[3], an epoll instance in register Args[4]; it never returns.
	opSupervise
	// opExec is one candidate of the payload's command: path Args[0],
	// argv Args[1], envp Args[2], a stat buffer Args[3]. It is stat'ed,
	// checked not to be a directory and for execute permission
	// (faccessat X_OK), then executed; with Args[4] set (a PATH search)
	// a stat that fails goes on to the next op, a directory or a denied
	// execute is remembered (the first) and goes on; without it they
	// fail the step. A failed execve fails step Args[5].
	opExec
	// opExecEnd ends a search that executed nothing: with the first
	// denial remembered, else ENOENT at its own step.
	opExecEnd
	// opServe serves the socket factory on descriptor Args[0], its
	// buffer Args[1], until nsrun says ready; a factory that ends first
	// fails at its own step, or at step Args[2] (recvmsg) or Args[3]
	// (sendmsg) for the kernel's errno.
	opServe
	// opAddAddr sends the RTM_NEWADDR in buffer Args[0] (Args[1] bytes
	// long): a failure is logged with Args[3] set (verbose), at step
	// Args[2] for the netlink socket, Args[4] for no acknowledgement.
	opAddAddr
	// opNote logs its step.
	opNote
)

var opNames = map[opCode]string{opSys: "sys", opCmp: "cmp", opJumpReg: "jumpreg", opJump: "jump", opStore32: "store32",
	opLoad32: "load32", opExit: "exit", opPayload: "payload", opExecWait: "execwait", opStarted: "started", opSupervise: "supervise", opVfork: "vfork",
	opExec: "exec", opExecEnd: "execend", opServe: "serve", opAddAddr: "addaddr", opNote: "note"}

// argKind says what an argument's value is.
type argKind uint8

const (
	argImm argKind = iota // the value itself
	argReg                // a register, set by an earlier op
	argBuf                // the address of a buffer, plus Off
)

// Arg is one argument of an op. Its fields are laid out small: a plan of
// 2,000 mounts compiles to some 32,000 ops, and their memory, new pages
// each launch, is much of what compiling costs on a VM.
type Arg struct {
	V    uintptr // the value, the register, or the buffer's index
	Off  uint32  // for argBuf: bytes into the buffer
	Kind argKind
}

func imm(v uintptr) Arg         { return Arg{Kind: argImm, V: v} }
func immInt(v int) Arg          { return Arg{Kind: argImm, V: uintptr(v)} }
func reg(r int) Arg             { return Arg{Kind: argReg, V: uintptr(r)} }
func buf(b int) Arg             { return Arg{Kind: argBuf, V: uintptr(b)} }
func (a Arg) isZero() bool      { return a == Arg{} }
func (a Arg) withOff(o int) Arg { a.Off += uint32(o); return a }

// Op is one operation of a Program.
type Op struct {
	Args [6]Arg
	Nr   uintptr // opSys: the system call
	Dst  int     // register for the result; -1: none
	To   int     // jump target (an op index); -1: none
	Step int     // index into Program.Steps
	OK   [2]errnum
	Skip errnum
	Code opCode
	Eq   bool
}

// errnum is an errno kept small (every errno is below 4096).
type errnum uint16

// Buffer is memory the child reads or writes: bytes, or (Ptrs) a
// NULL-terminated table of the addresses of other buffers.
type Buffer struct {
	Data   []byte
	Fixups []Fixup // addresses of other buffers written into Data
	Ptrs   []int
	Size   int // bytes to reserve when Data is shorter (scratch)
	Name   string
}

// Fixup has the linker write the address of buffer Buf, plus At bytes,
// at Off.
type Fixup struct{ Off, Buf, At int }

// Program is what the child runs: ops over buffers, with a description of
// each step for errors.
type Program struct {
	Ops   []Op
	Bufs  []Buffer
	Steps []string
	Regs  int
	// ExecStep is the step of the payload's execve; Path is the PATH it
	// searches when the command has no slash, "" when it has one.
	ExecStep int
	Path     string
	// SearchStep is the step that fails a PATH search which found
	// nothing (ENOENT: "command not found").
	SearchStep int
	// Explain names the steps whose EPERM the Go init explains: a
	// refused procfs or sysfs ("proc", "sys"), an rlimit ("rlimit"); and
	// the socket factory's ("factory"), whose own findings are worded as
	// netproxy's.
	Explain map[int]string
	// Rlimits are the limits set at each rlimit step.
	Rlimits map[int]launch.Rlimit
	// Verbose has the init log its milestones (the Go init's -v steps).
	Verbose bool
}

// builder appends ops to a Program.
type builder struct {
	p       *Program
	step    int
	strs    map[string]int
	root    int  // the register of the new root while mounting
	statBuf *Arg // the buffer fstat fills
	vfork   bool
	walk    bool       // openat2 is refused: paths are walked
	nofile  *[2]uint64 // RLIMIT_NOFILE for the payload
	// vm: pid 1 shares the caller's memory (Input.VM), and must stay out
	// of the payload's reach (sharedpid1_linux.go).
	vm    bool
	files *scratchFiles // the scratch tmpfs of denied files and files
	// The read-only structs made so far: one buffer for each value.
	hows  map[[2]uint64]Arg
	attrs map[uint64]Arg
	// filtered: the seccomp filters are loaded, and may kill a system
	// call the init would make for itself alone (a milestone's clock).
	filtered bool
}

func newBuilder() *builder {
	return &builder{p: &Program{Explain: map[int]string{}, Rlimits: map[int]launch.Rlimit{}}, strs: map[string]int{},
		hows: map[[2]uint64]Arg{}, attrs: map[uint64]Arg{}}
}

// reserve makes room for a plan of n mount ops (17 ops, 3 buffers, 3
// steps and 2 new strings each, a bind's, plus the rest of the program):
// growing the op list in steps would copy it again and again, a copy long
// enough that the collector, waiting to scan this goroutine's stack,
// interrupts it with signal after signal (1,000 rules took 200 ms to
// compile). Reserving more than needed costs too: each launch touches its
// pages afresh.
func (b *builder) reserve(n int) {
	b.p.Ops = make([]Op, 0, 17*n+512)
	b.p.Bufs = make([]Buffer, 0, 3*n+128)
	b.p.Steps = make([]string, 0, 3*n+128)
	b.strs = make(map[string]int, 2*n+64)
}

// begin starts a new step: what the following ops do, as an error names
// it.
func (b *builder) begin(format string, args ...any) {
	b.p.Steps = append(b.p.Steps, fmt.Sprintf(format, args...))
	b.step = len(b.p.Steps) - 1
}

// again begins a step named as the current one, of kind (Program.Explain),
// whose words are made only if it fails: a name made for every rule would
// be thousands of strings made for nothing.
func (b *builder) again(kind string) {
	b.p.Steps = append(b.p.Steps, b.p.Steps[b.step])
	b.step = len(b.p.Steps) - 1
	b.p.Explain[b.step] = kind
}

// note logs name as a milestone, as the Go init's -v steps are, when the
// program is verbose; the ops after it stay in the current step. Once
// the filters are loaded the init leaves the clock alone (a profile may
// kill clock_gettime, which the Go init and the payload read through the
// vDSO, unfiltered): nsrun times such a milestone as it reads it.
func (b *builder) note(name string) {
	if !b.p.Verbose {
		return
	}
	prev := b.step
	b.begin("%s", name)
	untimed := imm(0)
	if b.filtered {
		untimed = imm(1)
	}
	b.add(Op{Code: opNote, Args: [6]Arg{untimed}})
	b.step = prev
}

func (b *builder) newReg() int {
	b.p.Regs++
	return b.p.Regs - 1
}

// str is a NUL-terminated string buffer, shared among ops.
func (b *builder) str(s string) Arg {
	if i, ok := b.strs[s]; ok {
		return buf(i)
	}
	// No name: Render quotes a string buffer's bytes when asked.
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: append([]byte(s), 0)})
	i := len(b.p.Bufs) - 1
	b.strs[s] = i
	return buf(i)
}

// data is a buffer with these bytes.
func (b *builder) data(name string, d []byte) Arg {
	b.p.Bufs = append(b.p.Bufs, Buffer{Data: d, Name: name})
	return buf(len(b.p.Bufs) - 1)
}

// scratch is a zeroed buffer of size bytes.
func (b *builder) scratch(name string, size int) Arg {
	b.p.Bufs = append(b.p.Bufs, Buffer{Size: size, Name: name})
	return buf(len(b.p.Bufs) - 1)
}

// table is a NULL-terminated array of string pointers (argv, envp).
func (b *builder) table(name string, ss []string) Arg {
	ptrs := make([]int, len(ss))
	for i, s := range ss {
		ptrs[i] = int(b.str(s).V)
	}
	b.p.Bufs = append(b.p.Bufs, Buffer{Ptrs: ptrs, Name: name})
	return buf(len(b.p.Bufs) - 1)
}

func (b *builder) add(op Op) int {
	op.Step = b.step
	if op.To == 0 {
		op.To = -1
	}
	if op.Code != opLoad32 && op.Code != opSys && op.Code != opVfork {
		op.Dst = -1
	}
	b.p.Ops = append(b.p.Ops, op)
	return len(b.p.Ops) - 1
}

// sys adds a system call whose result is not kept.
func (b *builder) sys(nr uintptr, args ...Arg) int {
	op := Op{Code: opSys, Nr: nr, Dst: -1}
	copy(op.Args[:], args)
	return b.add(op)
}

// sysTo adds a system call whose result goes to a new register.
func (b *builder) sysTo(nr uintptr, args ...Arg) (int, int) {
	r := b.newReg()
	i := b.sys(nr, args...)
	b.p.Ops[i].Dst = r
	return i, r
}

// ok lets op i succeed on these errnos.
func (b *builder) ok(i int, errnos ...syscall.Errno) {
	for j, e := range errnos[:min(len(errnos), 2)] {
		b.p.Ops[i].OK[j] = errnum(e)
	}
}

// label is the index the next op will have.
func (b *builder) label() int { return len(b.p.Ops) }

// String renders op i, for tests and for -v.
func (p *Program) String() string {
	var sb strings.Builder
	for i := range p.Ops {
		fmt.Fprintf(&sb, "%d %s\n", i, p.Render(i))
	}
	return sb.String()
}

// Render describes op i: its call and arguments, buffers by name.
func (p *Program) Render(i int) string {
	op := p.Ops[i]
	var sb strings.Builder
	sb.WriteString(opNames[op.Code])
	if op.Code == opSys {
		sb.WriteString(" " + sysName(op.Nr))
	}
	n := 6
	for n > 0 && op.Args[n-1].isZero() {
		n--
	}
	for _, a := range op.Args[:n] {
		sb.WriteString(" " + p.renderArg(a))
	}
	if op.Dst >= 0 {
		fmt.Fprintf(&sb, " -> r%d", op.Dst)
	}
	for _, e := range op.OK {
		if e != 0 {
			fmt.Fprintf(&sb, " ok=%s", errName(syscall.Errno(e)))
		}
	}
	if op.Skip != 0 {
		fmt.Fprintf(&sb, " %s->%d", errName(syscall.Errno(op.Skip)), op.To)
	} else if op.To >= 0 {
		if op.Code == opCmp || op.Code == opJumpReg {
			fmt.Fprintf(&sb, " eq=%v", op.Eq)
		}
		fmt.Fprintf(&sb, " ->%d", op.To)
	} else if op.Code == opCmp {
		fmt.Fprintf(&sb, " eq=%v fail", op.Eq)
	}
	return sb.String()
}

func (p *Program) renderArg(a Arg) string {
	switch a.Kind {
	case argReg:
		return fmt.Sprintf("r%d", a.V)
	case argBuf:
		s := p.Bufs[a.V].Name
		if s == "" {
			s = strconv.Quote(string(bytes.TrimSuffix(p.Bufs[a.V].Data, []byte{0})))
		}
		if a.Off != 0 {
			s += fmt.Sprintf("+%d", a.Off)
		}
		return s
	}
	if int(a.V) < 0 {
		return strconv.Itoa(int(a.V))
	}
	return fmt.Sprintf("%#x", a.V)
}

func errName(e syscall.Errno) string {
	for name, v := range errnoNames {
		if v == e {
			return name
		}
	}
	return strconv.Itoa(int(e))
}

var errnoNames = map[string]syscall.Errno{"ENOENT": syscall.ENOENT, "EEXIST": syscall.EEXIST, "EINVAL": syscall.EINVAL,
	"ENOTDIR": syscall.ENOTDIR, "EACCES": syscall.EACCES, "ESTALE": syscall.ESTALE, "ELOOP": syscall.ELOOP}
