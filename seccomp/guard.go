package seccomp

// Errnos of the guard's rules.
const (
	errEOPNOTSUPP     = 95
	errEPROTONOSUPPRT = 93
)

// Flag and mode bits the guard's rules test (the same on amd64 and arm64).
const (
	sISUID      = 0o4000
	sISGID      = 0o2000
	oCREAT      = 0o100
	oTMPFILE    = 0o20000000 // __O_TMPFILE, without O_DIRECTORY (whose value differs)
	msgFastOpen = 0x20000000
	sockStream  = 1
	sockDgram   = 2
	sockRaw     = 3 // a unix SOCK_RAW socket is made a datagram one
	ipprotoTCP  = 6
	ipprotoUDP  = 17
)

// GuardOptions chooses the rules of Guard beyond the set-id ones, which it
// always has.
type GuardOptions struct {
	// NoNetwork refuses every socket family but unix and netlink: the
	// sandbox has no network namespace and must have no network.
	NoNetwork bool
	// Ports restricts inet sockets to what Landlock's port rules see;
	// nil when no port is restricted.
	Ports *PortGuard
}

// PortGuard is what Landlock's TCP and UDP port rules need from seccomp.
type PortGuard struct {
	// Connect: TCP connect() is restricted, so data sent without it (TCP
	// Fast Open) is refused.
	Connect bool
	// Bind: TCP bind() is restricted, so listen() goes to a supervisor,
	// which refuses it on a socket never bound (the kernel would pick a
	// port with no bind() to check).
	Bind bool
}

// Guard is nsrun's own filter, loaded beside whatever profile the sandbox
// has (the kernel applies the strictest action of all filters). Its rules
// close ways around the other layers:
//
//   - set-uid and set-gid bits (EPERM): chmod, fchmod, fchmodat and
//     fchmodat2 with S_ISUID or S_ISGID in the mode; open, openat and creat
//     creating a file (O_CREAT, O_TMPFILE) with either bit; mknod and
//     mknodat with either bit. A sandbox started by host root writes its
//     files as host root, and the owner of a file needs no capability to
//     make it set-uid: the bits would be live on the host. openat2 keeps
//     its mode in memory no filter can read: it is refused with ENOSYS,
//     so programs fall back to openat. (mkdir cannot set either bit: the
//     kernel strips them.) io_uring (EPERM), which opens files with any
//     mode, and makes and uses sockets, where no filter sees it.
//   - with NoNetwork, socket and socketpair of any family but AF_UNIX and
//     AF_NETLINK (EAFNOSUPPORT).
//   - with Ports, inet sockets other than TCP (SOCK_STREAM, protocol 0 or
//     IPPROTO_TCP) and UDP (SOCK_DGRAM, protocol 0 or IPPROTO_UDP)
//     (EPROTONOSUPPORT): MPTCP, SCTP, SMC, UDP-Lite, ping sockets, raw
//     sockets are not seen by Landlock's port rules; and families other
//     than unix, inet, inet6 and netlink (EPROTONOSUPPORT), whatever the
//     profile allows: AF_SMC, AF_RDS, AF_TIPC and AF_KCM carry inet
//     traffic on sockets the kernel makes for itself, which Landlock does
//     not check.
//     With Ports.Connect, sendto, sendmsg and sendmmsg with MSG_FASTOPEN
//     (EOPNOTSUPP, as a kernel without client Fast Open answers): they
//     connect without connect(). With Ports.Bind, listen() is handed to
//     the supervisor (SECCOMP_RET_USER_NOTIF): the program must be loaded
//     with a listener (LoadListener).
//
// Flags and modes are compared on the bits the kernel reads, so high
// bits in an argument cannot slip a call past a rule.
func Guard(o GuardOptions) Profile {
	p := Profile{Name: "guard", DefaultAction: Action{Kind: ActAllow}}
	p.Rules = append(p.Rules, setIDRules()...)
	if o.NoNetwork {
		p.Rules = append(p.Rules, noNetworkRules()...)
	}
	if o.Ports != nil {
		p.Rules = append(p.Rules, inetProtocolRules()...)
		p.Rules = append(p.Rules, inetOnlyRules()...)
		if o.Ports.Connect {
			p.Rules = append(p.Rules, fastOpenRules()...)
		}
		if o.Ports.Bind {
			p.Rules = append(p.Rules, Rule{Names: []string{"listen"}, Action: Action{Kind: ActNotify},
				Reason: "listen() on a socket never bound takes a port no bind() rule saw: the supervisor checks it"})
		}
	}
	return p
}

// Names says what a guard with these options holds, for the report.
func (o GuardOptions) Names() []string {
	names := []string{"no-setid"}
	if o.NoNetwork {
		names = append(names, "no-network")
	}
	if o.Ports != nil {
		names = append(names, "inet-tcp-udp-only")
		if o.Ports.Connect {
			names = append(names, "no-tcp-fastopen")
		}
		if o.Ports.Bind {
			names = append(names, "listen-checked")
		}
	}
	return names
}

// setIDRules refuse every call that can give a file a set-uid or set-gid
// bit: argument mode of the chmod family, of a creating open and of mknod.
func setIDRules() []Rule {
	const why = "set-uid and set-gid files made by the sandbox would be live on the host"
	var rules []Rule
	for _, c := range []struct {
		name string
		mode uint
	}{{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1}, {"mknod", 1}, {"mknodat", 2}} {
		for _, bit := range []uint64{sISUID, sISGID} {
			rules = append(rules, Rule{Names: []string{c.name}, Action: Action{Kind: ActErrno, Errno: errEPERM},
				Args: []Arg{masked(c.mode, bit, bit)}, Reason: why})
		}
	}
	for _, c := range []struct {
		name        string
		flags, mode uint
	}{{"open", 1, 2}, {"openat", 2, 3}} {
		// The mode is read only when the call creates a file; otherwise
		// it is whatever the register held.
		for _, create := range []uint64{oCREAT, oTMPFILE} {
			for _, bit := range []uint64{sISUID, sISGID} {
				rules = append(rules, Rule{Names: []string{c.name}, Action: Action{Kind: ActErrno, Errno: errEPERM},
					Args: []Arg{masked(c.flags, create, create), masked(c.mode, bit, bit)}, Reason: why})
			}
		}
	}
	return append(rules,
		enosys("openat2 keeps its mode where no filter can read it: libc and tools fall back to openat", "openat2"),
		eperm("io_uring opens files (with any mode) and makes and uses sockets where no syscall filter sees it",
			"io_uring_setup", "io_uring_enter", "io_uring_register"))
}

// familyRules refuse socket and socketpair when the family argument
// matches cond.
func familyRules(errno uint16, reason string, conds ...Arg) []Rule {
	var rules []Rule
	for _, c := range conds {
		rules = append(rules, Rule{Names: []string{"socket", "socketpair"}, Action: Action{Kind: ActErrno, Errno: errno},
			Args: []Arg{c}, Reason: reason})
	}
	return rules
}

// noNetworkRules refuse every socket family but AF_UNIX (1) and
// AF_NETLINK (16): the families 0, 2-3, 4-7, 8-15 on the low 32 bits,
// and everything from 17 (which also catches any value with high bits).
func noNetworkRules() []Rule {
	return familyRules(errEAFNOSUPPORT, "no network: only unix and netlink sockets",
		masked(0, low32, 0), masked(0, low32&^1, 2), masked(0, low32&^3, 4), masked(0, low32&^7, 8),
		Arg{Index: 0, Op: OpGE, Value: 17})
}

// inetOnlyRules refuse socket families other than AF_UNIX (1), AF_INET
// (2), AF_INET6 (10) and AF_NETLINK (16): 0, 3, 4-7, 8-9, 11, 12-15 on the
// low 32 bits, and everything from 17.
func inetOnlyRules() []Rule {
	return familyRules(errEPROTONOSUPPRT, "socket families beyond unix, inet, inet6 and netlink can carry inet traffic around the port rules",
		masked(0, low32, 0), masked(0, low32, 3), masked(0, low32&^3, 4), masked(0, low32&^1, 8),
		masked(0, low32, 11), masked(0, low32&^3, 12), Arg{Index: 0, Op: OpGE, Value: 17})
}

// inetProtocolRules refuse inet sockets (AF_INET 2 and AF_INET6 10: one
// masked test matches both) that are neither TCP nor UDP. Each rule is the
// domain, a type (the low 4 bits of the type argument; the rest are
// SOCK_NONBLOCK and SOCK_CLOEXEC) and a protocol set, spelt as masked
// tests and one unsigned lower bound.
func inetProtocolRules() []Rule {
	const why = "inet sockets other than TCP and UDP (MPTCP, SCTP, SMC, UDP-Lite, ping, raw) are not seen by Landlock's port rules"
	inet := masked(0, low32&^8, 2)
	typ := func(mask, value uint64) Arg { return masked(1, mask, value) }
	proto := func(mask, value uint64) Arg { return masked(2, mask, value) }
	from := func(v uint64) Arg { return Arg{Index: 2, Op: OpGE, Value: v} }
	sets := [][]Arg{
		// Types other than SOCK_STREAM (1) and SOCK_DGRAM (2): 0, 3, 4-7, 8-15.
		{typ(0xf, 0)}, {typ(0xf, 3)}, {typ(0xc, 4)}, {typ(0x8, 8)},
		// SOCK_STREAM with a protocol other than 0 and IPPROTO_TCP (6).
		{typ(0xf, sockStream), from(ipprotoTCP + 1)}, {typ(0xf, sockStream), proto(low32, 1)},
		{typ(0xf, sockStream), proto(low32&^1, 2)}, {typ(0xf, sockStream), proto(low32&^1, 4)},
		// SOCK_DGRAM with a protocol other than 0 and IPPROTO_UDP (17).
		{typ(0xf, sockDgram), from(ipprotoUDP + 1)}, {typ(0xf, sockDgram), proto(low32, 1)},
		{typ(0xf, sockDgram), proto(low32&^1, 2)}, {typ(0xf, sockDgram), proto(low32&^3, 4)},
		{typ(0xf, sockDgram), proto(low32&^7, 8)}, {typ(0xf, sockDgram), proto(low32, 16)},
	}
	var rules []Rule
	for _, s := range sets {
		rules = append(rules, Rule{Names: []string{"socket"}, Action: Action{Kind: ActErrno, Errno: errEPROTONOSUPPRT},
			Args: append([]Arg{inet}, s...), Reason: why})
	}
	return rules
}

// fastOpenRules refuse MSG_FASTOPEN, which connects a TCP socket and sends
// data in its SYN without connect(), where Landlock checks the port.
func fastOpenRules() []Rule {
	const why = "TCP Fast Open (MSG_FASTOPEN) connects without connect(), where the port rules are checked"
	var rules []Rule
	for _, c := range []struct {
		name  string
		flags uint
	}{{"sendto", 3}, {"sendmsg", 2}, {"sendmmsg", 3}} {
		rules = append(rules, Rule{Names: []string{c.name}, Action: Action{Kind: ActErrno, Errno: errEOPNOTSUPP},
			Args: []Arg{masked(c.flags, msgFastOpen, msgFastOpen)}, Reason: why})
	}
	return rules
}
