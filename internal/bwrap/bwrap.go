// Package bwrap parses bubblewrap's command line as bubblewrap 0.12.0
// parses it, into a typed, ordered list of setup operations and the
// process settings around them. It only parses: it opens, reads and
// mounts nothing, and imports nothing of nsrun's.
//
// What it guarantees:
//   - Options are taken in order, one at a time, as bubblewrap's
//     parse_args does: the first argument that does not start with "-", or
//     the one after "--", starts the command, and everything after it is
//     the command's. "--help" and "--version" stop the parsing where they
//     stand (Args.Help, Args.Version); errors in options before them are
//     still reported, options after them are not looked at.
//   - "--args FD" takes NUL-separated arguments from the descriptor (read
//     through the injected ReadFunc), parsed in place as if they stood
//     there; as in bubblewrap, a "--" or a command in that data ends its
//     parsing and the rest of the data is dropped, and "--args" inside it
//     is an error. At most 9,000 arguments are taken in all.
//   - Every operation keeps the option that made it (Op.Option, e.g.
//     "--ro-bind-try"), its arguments as given (paths are not cleaned or
//     resolved: relative sources are relative to bubblewrap's current
//     directory, relative destinations to the sandbox's root), and the
//     modifiers that preceded it (--perms, --size, --overlay-src).
//   - An error is an *Error whose Msg is bubblewrap's own message, word for
//     word (without its "bwrap: " prefix), for the same input (but that
//     --add-seccomp-fd data is not read, so not checked, here):
//     "--bind takes two arguments", "Unknown option --foo", "Invalid fd: x"
//     and so on. No argument at all is ErrUsage (bubblewrap prints its
//     usage to stderr and exits 1); so is no command, from Check.
//   - Warnings bubblewrap prints while parsing ("Only the last --chdir
//     option will take effect") are in Args.Warnings, in order, also when
//     parsing then fails.
//
// Check applies the checks bubblewrap makes once the whole line is parsed
// (--uid needs --unshare-user, --as-pid-1 needs --unshare-pid, ...), given
// the caller's ids; it too only decides.
package bwrap

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Kind is what a setup operation does, named after bubblewrap's option.
type Kind int

// The operations, in bubblewrap's vocabulary.
const (
	// Bind is --bind, --bind-try and --bind-fd (Source "/proc/self/fd/N"
	// and FD N for the last).
	Bind Kind = iota + 1
	// ROBind is --ro-bind, --ro-bind-try and --ro-bind-fd.
	ROBind
	// DevBind is --dev-bind and --dev-bind-try.
	DevBind
	// RemountRO is --remount-ro DEST.
	RemountRO
	// Overlay is --overlay RWSRC WORKDIR DEST (Source RWSRC, Workdir).
	Overlay
	// TmpOverlay is --tmp-overlay DEST.
	TmpOverlay
	// ROOverlay is --ro-overlay DEST.
	ROOverlay
	// Proc is --proc DEST.
	Proc
	// Dev is --dev DEST.
	Dev
	// Tmpfs is --tmpfs DEST (Perms 0755 unless --perms, Size from --size).
	Tmpfs
	// Mqueue is --mqueue DEST.
	Mqueue
	// Dir is --dir DEST (Perms 0755 unless --perms).
	Dir
	// File is --file FD DEST (Perms 0666 unless --perms).
	File
	// BindData is --bind-data FD DEST (Perms 0600 unless --perms).
	BindData
	// ROBindData is --ro-bind-data FD DEST (Perms 0600 unless --perms).
	ROBindData
	// Symlink is --symlink TARGET DEST (Source is TARGET).
	Symlink
	// Chmod is --chmod OCTAL PATH (Perms, Dest).
	Chmod
)

// Op is one setup operation, in the order given.
type Op struct {
	Kind    Kind
	Option  string   // the option as given, e.g. "--ro-bind-try"
	Source  string   // host path, symlink target or overlay RWSRC; "" if none
	Dest    string   // path inside, as given
	Workdir string   // --overlay's WORKDIR
	Sources []string // the --overlay-src paths before an overlay, bottom first
	FD      int      // --bind-fd, --ro-bind-fd, --file, --bind-data, --ro-bind-data; -1 otherwise
	Try     bool     // a -try variant: a missing source skips the operation
	Perms   int      // the mode the operation creates with, -1 where it takes none
	Size    uint64   // --size before a --tmpfs; 0 is the kernel's default
}

// Namespaces are the --unshare-* and --share-net settings, as they stand
// after the whole line (--share-net clears Net, --unshare-all sets the
// -try variants of user and cgroup).
type Namespaces struct {
	User, UserTry, IPC, PID, Net, UTS, Cgroup, CgroupTry bool
}

// EnvKind is what an environment edit does.
type EnvKind int

// The environment edits.
const (
	SetEnv   EnvKind = iota + 1 // --setenv NAME VALUE
	UnsetEnv                    // --unsetenv NAME
	ClearEnv                    // --clearenv
)

// EnvOp is one edit of bubblewrap's own environment, which the command
// inherits; they apply in order.
type EnvOp struct {
	Kind        EnvKind
	Name, Value string
}

// CapOp is one --cap-add or --cap-drop; Name is as given ("ALL" or a
// capability name or number, checked).
type CapOp struct {
	Add  bool
	Name string
}

// Args is a parsed command line.
type Args struct {
	Ops     []Op
	Unshare Namespaces
	// UID, GID are --uid and --gid; -1 when not given.
	UID, GID int
	// Hostname is --hostname; HostnameSet says whether it was given.
	Hostname    string
	HostnameSet bool
	Env         []EnvOp
	// Chdir is --chdir (the last one); ChdirSet says whether given.
	Chdir    string
	ChdirSet bool
	// Argv0 is --argv0; Argv0Set says whether given.
	Argv0    string
	Argv0Set bool
	Caps     []CapOp

	DieWithParent, NewSession, AsPid1      bool
	DisableUserns, AssertUsernsDisabled    bool
	LevelPrefix, NotASecurityBoundary      bool
	ExecLabel, FileLabel                   string
	LockFiles                              []string
	DebugOpts                              []string
	SyncFD, BlockFD, UsernsBlockFD, InfoFD int // -1 when not given
	JSONStatusFD, SeccompFD                int
	UsernsFD, Userns2FD, PidnsFD           int
	AddSeccompFDs                          []int
	ArgsFDs                                []int // the --args descriptors, in the order read
	Help, Version                          bool
	Warnings                               []string
	Command                                []string

	// The parser's state: modifiers waiting for the option they modify,
	// and the arguments counted so far.
	nextPerms   int
	nextSize    uint64
	overlaySrcs []string
	total       int
}

// Error is a command line bubblewrap refuses; Msg is bubblewrap's message
// without the "bwrap: " prefix.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// ErrUsage means bubblewrap would print its usage to stderr and exit 1:
// no arguments at all, or no command.
var ErrUsage = errors.New("usage")

// ReadFunc reads all the data of descriptor fd, for --args.
type ReadFunc func(fd int) ([]byte, error)

// maxArgs is bubblewrap's bound on the arguments, counting those of
// --args files.
const maxArgs = 9000

// Parse parses argv, the arguments after the program's name. read serves
// --args; nil makes every --args an error.
func Parse(argv []string, read ReadFunc) (*Args, error) {
	a := &Args{
		UID: -1, GID: -1,
		SyncFD: -1, BlockFD: -1, UsernsBlockFD: -1, InfoFD: -1,
		JSONStatusFD: -1, SeccompFD: -1, UsernsFD: -1, Userns2FD: -1, PidnsFD: -1,
		nextPerms: -1,
	}
	// bubblewrap answers a lone --version before anything else.
	if len(argv) == 1 && argv[0] == "--version" {
		a.Version = true
		return a, nil
	}
	if len(argv) == 0 {
		return a, ErrUsage
	}
	a.total = len(argv)
	rest, err := a.parse(argv, false, read)
	if err != nil {
		return a, err
	}
	if a.Help || a.Version {
		return a, nil
	}
	if len(a.overlaySrcs) > 0 {
		return a, errOverlaySrc
	}
	// No command is ErrUsage too, but from Check: bubblewrap makes some
	// of its checks first.
	a.Command = rest
	return a, nil
}

var errOverlaySrc = &Error{"--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay"}

func errorf(format string, args ...any) error {
	return &Error{fmt.Sprintf(format, args...)}
}

// parse is bubblewrap's parse_args_recurse: it returns the arguments left
// when it stopped (the command), or stops early for --help and --version.
func (a *Args) parse(argv []string, inFile bool, read ReadFunc) ([]string, error) {
	if a.total > maxArgs {
		return nil, errorf("Exceeded maximum number of arguments %d", maxArgs)
	}
	for len(argv) > 0 {
		arg := argv[0]
		n, stop, err := a.option(arg, argv, inFile, read)
		if err != nil {
			return nil, err
		}
		if stop || a.Help || a.Version {
			if arg == "--" {
				return argv[1:], nil
			}
			return argv, nil
		}
		// A modifier not taken up by the option that follows it.
		if arg != "--perms" && arg != "--size" {
			if a.nextPerms >= 0 {
				return nil, errorf("--perms must be followed by an option that creates a file")
			}
			if a.nextSize != 0 {
				return nil, errorf("--size must be followed by --tmpfs")
			}
		}
		if arg != "--overlay-src" && len(a.overlaySrcs) > 0 {
			return nil, errOverlaySrc
		}
		if n >= len(argv) {
			return nil, nil
		}
		argv = argv[n:]
	}
	return nil, nil
}

// option handles argv[0], an option or the end of the options; n is how
// many arguments it took, stop says the options ended at it.
func (a *Args) option(arg string, argv []string, inFile bool, read ReadFunc) (n int, stop bool, err error) {
	if spec, ok := simple()[arg]; ok {
		spec(a)
		return 1, false, nil
	}
	if spec, ok := withArgs()[arg]; ok {
		if len(argv) < spec.n+1 {
			return 0, false, errorf("%s", spec.missing(arg))
		}
		return spec.n + 1, false, spec.do(a, arg, argv[1:spec.n+1])
	}
	switch {
	case arg == "--args":
		return 2, false, a.args(argv, inFile, read)
	case arg == "--overlay-src":
		// bubblewrap takes the next argument without checking it is there;
		// a missing one ends the line with the --overlay-src pending.
		src := ""
		if len(argv) > 1 {
			src = argv[1]
		}
		a.overlaySrcs = append(a.overlaySrcs, src)
		return 2, false, nil
	case strings.HasPrefix(arg, "--debug-opt="):
		v := strings.TrimPrefix(arg, "--debug-opt=")
		if v != "force-openat-fallback" {
			return 0, false, errorf("Unknown --debug-opt value: %s", v)
		}
		a.DebugOpts = append(a.DebugOpts, v)
		return 1, false, nil
	case arg == "--":
		return 1, true, nil
	case strings.HasPrefix(arg, "-"):
		return 0, false, errorf("Unknown option %s", arg)
	}
	return 0, true, nil
}

// args is --args FD: the descriptor's NUL-separated arguments, parsed in
// place.
func (a *Args) args(argv []string, inFile bool, read ReadFunc) error {
	if inFile {
		return errorf("--args not supported in arguments file")
	}
	if len(argv) < 2 {
		return errorf("--args takes an argument")
	}
	fd, err := parseFD(argv[1])
	if err != nil {
		return err
	}
	if read == nil {
		return errorf("Can't read --args data: Bad file descriptor")
	}
	data, rerr := read(fd)
	if rerr != nil {
		return errorf("Can't read --args data: %s", Strerror(rerr))
	}
	a.ArgsFDs = append(a.ArgsFDs, fd)
	words := splitNUL(data)
	a.total += len(words)
	if a.total > maxArgs {
		return errorf("Exceeded maximum number of arguments %d", maxArgs)
	}
	// What is left after a "--" or a command in the data is dropped, as
	// bubblewrap drops it.
	_, err = a.parse(words, true, read)
	return err
}

// splitNUL splits --args data as bubblewrap does: each NUL ends an
// argument, and text after the last NUL is one more.
func splitNUL(data []byte) []string {
	var words []string
	for len(data) > 0 {
		i := strings.IndexByte(string(data), 0)
		if i < 0 {
			words = append(words, string(data))
			break
		}
		words = append(words, string(data[:i]))
		data = data[i+1:]
	}
	return words
}

// Strerror words err as C's strerror does where it is an errno (Go's
// texts are glibc's, but for the capital letter).
func Strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
