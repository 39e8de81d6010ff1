package ptrace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/procfs"
)

// maxPath bounds what is read of a path in a traced process's memory.
const maxPath = 4096

// readString reads the NUL-terminated string at addr in tid's memory, a
// page at a time (the next page may not be mapped), at most maxPath bytes.
func readString(tid int, addr uint64) (string, bool) {
	if addr == 0 {
		return "", false
	}
	page := uint64(os.Getpagesize())
	var out []byte
	for len(out) < maxPath {
		n := page - addr%page
		if rest := uint64(maxPath - len(out)); n > rest {
			n = rest
		}
		buf := make([]byte, n)
		got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &buf[0], Len: n}},
			[]unix.RemoteIovec{{Base: uintptr(addr), Len: int(n)}}, 0)
		if err != nil || got <= 0 {
			return string(out), false
		}
		if i := bytes.IndexByte(buf[:got], 0); i >= 0 {
			return string(append(out, buf[:i]...)), true
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return string(out), false
}

// readBytes reads n bytes at addr in tid's memory.
func readBytes(tid int, addr uint64, n int) ([]byte, bool) {
	if addr == 0 || n <= 0 {
		return nil, false
	}
	buf := make([]byte, n)
	got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &buf[0], Len: uint64(n)}},
		[]unix.RemoteIovec{{Base: uintptr(addr), Len: n}}, 0)
	if err != nil || got != n {
		return nil, false
	}
	return buf, true
}

// atFDCWD is AT_FDCWD as the kernel reads a descriptor argument: an int.
const atFDCWD = -100

// dirOf is the directory a relative path of tid's is resolved from: its
// working directory, or what descriptor fd names, as seen from tid's root.
func dirOf(tid int, fd int32) string {
	link := fmt.Sprintf("/proc/%d/cwd", tid)
	if fd != atFDCWD {
		link = fmt.Sprintf("/proc/%d/fd/%d", tid, fd)
	}
	d, err := os.Readlink(link)
	if err != nil {
		return ""
	}
	return d
}

// joinPath makes p absolute against tid's directory for it and cleans it
// (without following symlinks: what the kernel met on the way is gone).
func joinPath(tid int, dirfd int32, p string) string {
	if !strings.HasPrefix(p, "/") {
		base := dirOf(tid, dirfd)
		if !strings.HasPrefix(base, "/") {
			return ""
		}
		p = base + "/" + p
	}
	return path.Clean(p)
}

// sockaddr describes a socket address: host:port for inet, the path (or
// @name for the abstract namespace) for unix.
func sockaddr(b []byte) string {
	if len(b) < 2 {
		return ""
	}
	switch binary.NativeEndian.Uint16(b) {
	case unix.AF_INET:
		if len(b) >= 8 {
			a := netip.AddrFrom4([4]byte(b[4:8]))
			return netip.AddrPortFrom(a, binary.BigEndian.Uint16(b[2:4])).String()
		}
	case unix.AF_INET6:
		if len(b) >= 24 {
			a := netip.AddrFrom16([16]byte(b[8:24]))
			return netip.AddrPortFrom(a.Unmap(), binary.BigEndian.Uint16(b[2:4])).String()
		}
	case unix.AF_UNIX:
		p := b[2:]
		if len(p) > 0 && p[0] == 0 {
			return "@" + string(bytes.TrimRight(p[1:], "\x00"))
		}
		if i := bytes.IndexByte(p, 0); i >= 0 {
			p = p[:i]
		}
		return string(p)
	}
	return ""
}

// families names the socket families a filter may refuse.
var families = map[uint64]string{
	0: "AF_UNSPEC", 1: "AF_UNIX", 2: "AF_INET", 3: "AF_AX25", 4: "AF_IPX", 5: "AF_APPLETALK",
	6: "AF_NETROM", 7: "AF_BRIDGE", 8: "AF_ATMPVC", 9: "AF_X25", 10: "AF_INET6", 11: "AF_ROSE",
	12: "AF_DECnet", 13: "AF_NETBEUI", 14: "AF_SECURITY", 15: "AF_KEY", 16: "AF_NETLINK",
	17: "AF_PACKET", 18: "AF_ASH", 19: "AF_ECONET", 20: "AF_ATMSVC", 21: "AF_RDS", 22: "AF_SNA",
	23: "AF_IRDA", 24: "AF_PPPOX", 25: "AF_WANPIPE", 26: "AF_LLC", 27: "AF_IB", 28: "AF_MPLS",
	29: "AF_CAN", 30: "AF_TIPC", 31: "AF_BLUETOOTH", 32: "AF_IUCV", 33: "AF_RXRPC", 34: "AF_ISDN",
	35: "AF_PHONET", 36: "AF_IEEE802154", 37: "AF_CAIF", 38: "AF_ALG", 39: "AF_NFC", 40: "AF_VSOCK",
	41: "AF_KCM", 42: "AF_QIPCRTR", 43: "AF_SMC", 44: "AF_XDP", 45: "AF_MCTP",
}

var sockTypes = map[uint64]string{1: "SOCK_STREAM", 2: "SOCK_DGRAM", 3: "SOCK_RAW", 4: "SOCK_RDM", 5: "SOCK_SEQPACKET", 6: "SOCK_DCCP", 10: "SOCK_PACKET"}

// socketKind names a socket(2) call's family and type.
func socketKind(family, typ uint64) string {
	f, ok := families[family&0xffffffff]
	if !ok {
		f = "family " + strconv.FormatUint(family&0xffffffff, 10)
	}
	t, ok := sockTypes[typ&0xf]
	if !ok {
		t = "type " + strconv.FormatUint(typ&0xf, 10)
	}
	return f + " " + t
}

// procStatus reads the fields of /proc/TID/status this package uses.
func procStatus(tid int) (tgid int, nstgid int) {
	st, err := procfs.ReadStatus(tid)
	if err != nil {
		return 0, 0
	}
	tgid, _ = st.Int("Tgid", false)
	// The last is the id in the process's own PID namespace.
	nstgid, _ = st.Int("NStgid", true)
	return tgid, nstgid
}

// argv0Of is the first argument of process pid's command line.
func argv0Of(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) > maxPath {
		b = b[:maxPath]
	}
	return string(b)
}
