package landlock

import (
	"fmt"
	"strings"
)

// FS is a set of filesystem access rights, as the kernel numbers them.
type FS uint64

// Filesystem rights.
const (
	Execute FS = 1 << iota
	WriteFile
	ReadFile
	ReadDir
	RemoveDir
	RemoveFile
	MakeChar
	MakeDir
	MakeReg
	MakeSock
	MakeFifo
	MakeBlock
	MakeSym
	Refer       // ABI 2
	Truncate    // ABI 3
	IoctlDev    // ABI 5
	ResolveUnix // ABI 9
)

var fsNames = []string{"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym",
	"refer", "truncate", "ioctl_dev", "resolve_unix"}

// Net is a set of network access rights.
type Net uint64

// Network rights.
const (
	BindTCP        Net = 1 << iota // ABI 4
	ConnectTCP                     // ABI 4
	BindUDP                        // ABI 10
	ConnectSendUDP                 // ABI 10
)

var netNames = []string{"bind_tcp", "connect_tcp", "bind_udp", "connect_send_udp"}

// Scope is a set of IPC scopes.
type Scope uint64

// Scopes.
const (
	AbstractUnixSocket Scope = 1 << iota // ABI 6
	Signal                               // ABI 6
)

var scopeNames = []string{"abstract_unix_socket", "signal"}

// Common sets of rights.
const (
	// ReadExec is reading and executing.
	ReadExec = Execute | ReadFile | ReadDir
	// FileRights are the rights that mean something on a regular file;
	// the kernel refuses the others on a file.
	FileRights = Execute | WriteFile | ReadFile | Truncate | IoctlDev
	// AllFS is every filesystem right this package knows.
	AllFS FS = 1<<17 - 1
	// Bind are the rights that create, remove or rename a directory's
	// entries.
	Bind = RemoveDir | RemoveFile | MakeChar | MakeDir | MakeReg | MakeSock | MakeFifo | MakeBlock | MakeSym | Refer
)

// abiRights is what each ABI version can enforce; index = version.
var abiRights = []struct {
	fs    FS
	net   Net
	scope Scope
}{
	{},
	{fs: 1<<13 - 1},
	{fs: 1<<14 - 1},
	{fs: 1<<15 - 1},
	{fs: 1<<15 - 1, net: BindTCP | ConnectTCP},
	{fs: 1<<16 - 1, net: BindTCP | ConnectTCP},
	{fs: 1<<16 - 1, net: BindTCP | ConnectTCP, scope: AbstractUnixSocket | Signal},
	{fs: 1<<16 - 1, net: BindTCP | ConnectTCP, scope: AbstractUnixSocket | Signal},
	{fs: 1<<16 - 1, net: BindTCP | ConnectTCP, scope: AbstractUnixSocket | Signal},
	{fs: 1<<17 - 1, net: BindTCP | ConnectTCP, scope: AbstractUnixSocket | Signal},
	{fs: 1<<17 - 1, net: 1<<4 - 1, scope: AbstractUnixSocket | Signal},
}

// NewestABI is the newest ABI version this package knows.
var NewestABI = len(abiRights) - 1

func supported(abi int) (FS, Net, Scope) {
	if abi < 0 {
		abi = 0
	}
	if abi > NewestABI {
		abi = NewestABI
	}
	r := abiRights[abi]
	return r.fs, r.net, r.scope
}

// minABI is the first ABI version that supports every right in the sets.
func minABI(fs FS, net Net, scope Scope) int {
	for v := range abiRights {
		f, n, s := supported(v)
		if fs&^f == 0 && net&^n == 0 && scope&^s == 0 {
			return v
		}
	}
	return NewestABI + 1
}

func names(bits uint64, table []string) []string {
	var out []string
	for i, n := range table {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if rest := bits &^ (1<<len(table) - 1); rest != 0 {
		out = append(out, fmt.Sprintf("%#x", rest))
	}
	return out
}

func (f FS) String() string    { return strings.Join(names(uint64(f), fsNames), "|") }
func (n Net) String() string   { return strings.Join(names(uint64(n), netNames), "|") }
func (s Scope) String() string { return strings.Join(names(uint64(s), scopeNames), "|") }
