package seccomp

// afInet is AF_INET; AF_INET6 (10) is the same once bit 3 is masked off.
const afInet = 2

// TCPOnly refuses inet sockets other than TCP and TCP Fast Open (EACCES):
// a Landlock-only sandbox whose network is the proxy must reach nothing
// else, and Landlock's port rules see neither UDP (below ABI 10), nor
// other protocols on a stream socket (SCTP), nor data sent with
// MSG_FASTOPEN, which connects without connect().
func TCPOnly() Profile {
	deny := Action{Kind: ActErrno, Errno: errEACCES}
	masked := func(i uint, mask, value uint64) Arg {
		return Arg{Index: i, Op: OpMaskedEq, Value: mask, ValueTwo: value}
	}
	// AF_INET (2) and AF_INET6 (10): equal once bit 3 is masked off.
	inet := masked(0, 0xffffffff&^8, afInet)
	p := Profile{Name: "tcp-only", DefaultAction: Action{Kind: ActAllow}}
	const why = "a Landlock-only sandbox with a filtered network reaches the proxy over TCP, and nothing else"
	// Socket types other than SOCK_STREAM (1): 0, 2-3, 4-7, 8-15.
	for _, t := range []Arg{masked(1, 0xf, 0), masked(1, 0xe, 2), masked(1, 0xc, 4), masked(1, 0x8, 8)} {
		p.Rules = append(p.Rules, Rule{Names: []string{"socket"}, Action: deny, Args: []Arg{inet, t}, Reason: why})
	}
	// Any protocol but 0 and IPPROTO_TCP (6) on a stream socket.
	p.Rules = append(p.Rules, Rule{Names: []string{"socket"}, Action: deny, Reason: why,
		Args: []Arg{inet, {Index: 2, Op: OpGT, Value: ipprotoTCP}}})
	for _, c := range []struct {
		name  string
		flags uint
	}{{"sendto", 3}, {"sendmsg", 2}, {"sendmmsg", 3}} {
		p.Rules = append(p.Rules, Rule{Names: []string{c.name}, Action: deny, Reason: why,
			Args: []Arg{masked(c.flags, msgFastOpen, msgFastOpen)}})
	}
	return p
}
