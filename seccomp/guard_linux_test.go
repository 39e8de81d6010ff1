//go:build linux && amd64

package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestGuardDecisions(t *testing.T) {
	const (
		enosys    = retErrno | errENOSYS
		eproto    = retErrno | errEPROTONOSUPPRT
		eopnotsup = retErrno | errEOPNOTSUPP
		notify    = retUserNotif
		nonblock  = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC
		cwd       = 1<<64 - 100 // AT_FDCWD
	)
	all := GuardOptions{Ports: &PortGuard{Connect: true, Bind: true}}
	for _, tc := range []struct {
		name string
		opts GuardOptions
		nr   uint32
		args [6]uint64
		want uint32
	}{
		// Set-uid and set-gid bits, in every option set.
		{"chmod 0755", GuardOptions{}, unix.SYS_CHMOD, [6]uint64{0, 0o755}, allow},
		{"chmod 4755", GuardOptions{}, unix.SYS_CHMOD, [6]uint64{0, 0o4755}, eperm1},
		{"chmod 2755", GuardOptions{}, unix.SYS_CHMOD, [6]uint64{0, 0o2755}, eperm1},
		{"chmod 1777 (sticky)", GuardOptions{}, unix.SYS_CHMOD, [6]uint64{0, 0o1777}, allow},
		{"chmod 4755 with high bits", GuardOptions{}, unix.SYS_CHMOD, [6]uint64{0, 1<<32 | 0o4755}, eperm1},
		{"fchmod 6755", GuardOptions{}, unix.SYS_FCHMOD, [6]uint64{3, 0o6755}, eperm1},
		{"fchmod 0644", GuardOptions{}, unix.SYS_FCHMOD, [6]uint64{3, 0o644}, allow},
		{"fchmodat 4755", GuardOptions{}, unix.SYS_FCHMODAT, [6]uint64{cwd, 0, 0o4755}, eperm1},
		{"fchmodat 0755", GuardOptions{}, unix.SYS_FCHMODAT, [6]uint64{cwd, 0, 0o755}, allow},
		{"fchmodat2 2755", all, 452, [6]uint64{cwd, 0, 0o2755, 0}, eperm1},
		{"open O_CREAT 4755", GuardOptions{}, unix.SYS_OPEN, [6]uint64{0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, eperm1},
		{"open O_CREAT 0644", GuardOptions{}, unix.SYS_OPEN, [6]uint64{0, unix.O_CREAT | unix.O_WRONLY, 0o644}, allow},
		{"open without O_CREAT, junk mode", GuardOptions{}, unix.SYS_OPEN, [6]uint64{0, unix.O_RDONLY, 0o6777}, allow},
		{"openat O_CREAT 2755", GuardOptions{}, unix.SYS_OPENAT, [6]uint64{cwd, 0, unix.O_CREAT | unix.O_EXCL, 0o2755}, eperm1},
		{"openat O_TMPFILE 4755", GuardOptions{}, unix.SYS_OPENAT, [6]uint64{cwd, 0, unix.O_TMPFILE | unix.O_RDWR, 0o4755}, eperm1},
		{"openat O_TMPFILE 0600", GuardOptions{}, unix.SYS_OPENAT, [6]uint64{cwd, 0, unix.O_TMPFILE | unix.O_RDWR, 0o600}, allow},
		{"openat read, junk mode", GuardOptions{}, unix.SYS_OPENAT, [6]uint64{cwd, 0, unix.O_RDONLY | unix.O_CLOEXEC, 0o4000}, allow},
		{"creat 4755", GuardOptions{}, unix.SYS_CREAT, [6]uint64{0, 0o4755}, eperm1},
		{"creat 0644", GuardOptions{}, unix.SYS_CREAT, [6]uint64{0, 0o644}, allow},
		{"mknod regular 4755", GuardOptions{}, unix.SYS_MKNOD, [6]uint64{0, unix.S_IFREG | 0o4755, 0}, eperm1},
		{"mknod fifo 0644", GuardOptions{}, unix.SYS_MKNOD, [6]uint64{0, unix.S_IFIFO | 0o644, 0}, allow},
		{"mknodat regular 2755", GuardOptions{}, unix.SYS_MKNODAT, [6]uint64{cwd, 0, unix.S_IFREG | 0o2755, 0}, eperm1},
		{"openat2", GuardOptions{}, unix.SYS_OPENAT2, [6]uint64{}, enosys},
		{"mkdir 6777 (the kernel strips the bits)", GuardOptions{}, unix.SYS_MKDIR, [6]uint64{0, 0o6777}, allow},
		// Without network options, sockets are not touched.
		{"socket inet raw, no options", GuardOptions{}, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_RAW, 1}, allow},
		{"io_uring, no options", GuardOptions{}, unix.SYS_IO_URING_SETUP, [6]uint64{}, eperm1},
		{"listen, no options", GuardOptions{}, unix.SYS_LISTEN, [6]uint64{3, 1}, allow},
		// No network at all.
		{"no-network: unix", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, allow},
		{"no-network: netlink", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}, allow},
		{"no-network: inet", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM}, eafno},
		{"no-network: inet6", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_STREAM}, eafno},
		{"no-network: AF_UNSPEC", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{0}, eafno},
		{"no-network: packet", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{unix.AF_PACKET}, eafno},
		{"no-network: vsock", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{unix.AF_VSOCK}, eafno},
		{"no-network: unix with high bits", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{1<<32 | unix.AF_UNIX}, eafno},
		{"no-network: inet with high bits", GuardOptions{NoNetwork: true}, unix.SYS_SOCKET, [6]uint64{1<<32 | unix.AF_INET}, eafno},
		{"no-network: socketpair unix", GuardOptions{NoNetwork: true}, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX}, allow},
		{"no-network: socketpair inet", GuardOptions{NoNetwork: true}, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_INET}, eafno},
		{"no-network: io_uring", GuardOptions{NoNetwork: true}, unix.SYS_IO_URING_SETUP, [6]uint64{}, eperm1},
		{"no-network: listen is the kernel's", GuardOptions{NoNetwork: true}, unix.SYS_LISTEN, [6]uint64{3, 1}, allow},
		// Port rules: TCP and UDP only.
		{"ports: tcp", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow},
		{"ports: tcp, explicit", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_STREAM | nonblock, unix.IPPROTO_TCP}, allow},
		{"ports: udp", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM | nonblock, 0}, allow},
		{"ports: udp, explicit", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_UDP}, allow},
		{"ports: mptcp", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 262}, eproto},
		{"ports: mptcp, high bits", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 1<<32 | 262}, eproto},
		{"ports: tcp, high bits", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 1<<32 | 6}, eproto},
		{"ports: sctp stream", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, eproto},
		{"ports: sctp seqpacket", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_SEQPACKET, unix.IPPROTO_SCTP}, eproto},
		{"ports: smc", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 256}, eproto},
		{"ports: stream protocol 1", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 1}, eproto},
		{"ports: stream protocol 5", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 5}, eproto},
		{"ports: stream protocol 7", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 7}, eproto},
		{"ports: ping", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP}, eproto},
		{"ports: ping6", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_DGRAM | nonblock, unix.IPPROTO_ICMPV6}, eproto},
		{"ports: udplite", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_UDPLITE}, eproto},
		{"ports: l2tp", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_L2TP}, eproto},
		{"ports: dgram protocol 16", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, 16}, eproto},
		{"ports: dgram protocol 18", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, 18}, eproto},
		{"ports: dgram protocol 2", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, 2}, eproto},
		{"ports: raw", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP}, eproto},
		{"ports: SOCK_PACKET", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_PACKET, 0}, eproto},
		{"ports: dccp", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DCCP, 33}, eproto},
		{"ports: rdm", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_RDM, 0}, eproto},
		{"ports: type 0", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET, 0, 0}, eproto},
		{"ports: type 15", all, unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, 15, 0}, eproto},
		{"ports: unix raw is not inet", all, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET, 0}, allow},
		{"ports: netlink is not inet", all, unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW, 9}, allow},
		{"ports: family 2 with high bits is inet", all, unix.SYS_SOCKET, [6]uint64{1<<32 | unix.AF_INET, unix.SOCK_STREAM, 262}, eproto},
		{"ports: AF_SMC", all, unix.SYS_SOCKET, [6]uint64{unix.AF_SMC, unix.SOCK_STREAM, 0}, eproto},
		{"ports: AF_RDS", all, unix.SYS_SOCKET, [6]uint64{unix.AF_RDS, unix.SOCK_SEQPACKET, 0}, eproto},
		{"ports: AF_TIPC", all, unix.SYS_SOCKET, [6]uint64{unix.AF_TIPC, unix.SOCK_RDM, 0}, eproto},
		{"ports: AF_KCM", all, unix.SYS_SOCKET, [6]uint64{unix.AF_KCM, unix.SOCK_DGRAM, 0}, eproto},
		{"ports: AF_PACKET", all, unix.SYS_SOCKET, [6]uint64{unix.AF_PACKET, unix.SOCK_RAW, 0}, eproto},
		{"ports: AF_UNSPEC", all, unix.SYS_SOCKET, [6]uint64{0, unix.SOCK_STREAM, 0}, eproto},
		{"ports: family 3", all, unix.SYS_SOCKET, [6]uint64{3, unix.SOCK_STREAM, 0}, eproto},
		{"ports: family 9", all, unix.SYS_SOCKET, [6]uint64{9, unix.SOCK_STREAM, 0}, eproto},
		{"ports: family 11", all, unix.SYS_SOCKET, [6]uint64{11, unix.SOCK_STREAM, 0}, eproto},
		{"ports: family 15", all, unix.SYS_SOCKET, [6]uint64{15, unix.SOCK_STREAM, 0}, eproto},
		{"ports: family 17", all, unix.SYS_SOCKET, [6]uint64{17, unix.SOCK_STREAM, 0}, eproto},
		{"ports: netlink with high bits", all, unix.SYS_SOCKET, [6]uint64{1<<32 | unix.AF_NETLINK, unix.SOCK_RAW, 0}, eproto},
		{"ports: socketpair unix", all, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, allow},
		// TCP Fast Open.
		{"fastopen: sendto", all, unix.SYS_SENDTO, [6]uint64{3, 0, 1, unix.MSG_FASTOPEN}, eopnotsup},
		{"fastopen: sendto with other flags", all, unix.SYS_SENDTO, [6]uint64{3, 0, 1, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL}, eopnotsup},
		{"fastopen: sendmsg", all, unix.SYS_SENDMSG, [6]uint64{3, 0, unix.MSG_FASTOPEN}, eopnotsup},
		{"fastopen: sendmmsg", all, unix.SYS_SENDMMSG, [6]uint64{3, 0, 1, unix.MSG_FASTOPEN}, eopnotsup},
		{"sendto without fastopen", all, unix.SYS_SENDTO, [6]uint64{3, 0, 1, unix.MSG_NOSIGNAL}, allow},
		{"sendmsg without fastopen", all, unix.SYS_SENDMSG, [6]uint64{3, 0, unix.MSG_DONTWAIT}, allow},
		{"fastopen, bind rules only", GuardOptions{Ports: &PortGuard{Bind: true}}, unix.SYS_SENDTO, [6]uint64{3, 0, 1, unix.MSG_FASTOPEN}, allow},
		// listen goes to the supervisor when binding is restricted.
		{"listen, bind rules", all, unix.SYS_LISTEN, [6]uint64{3, 128}, notify},
		{"listen, connect rules only", GuardOptions{Ports: &PortGuard{Connect: true}}, unix.SYS_LISTEN, [6]uint64{3, 128}, allow},
		{"ports: io_uring", all, unix.SYS_IO_URING_ENTER, [6]uint64{}, eperm1},
		{"ports: connect is Landlock's", all, unix.SYS_CONNECT, [6]uint64{3}, allow},
		{"x32 chmod", all, x32Bit | unix.SYS_CHMOD, [6]uint64{0, 0o4755}, kill},
	} {
		c, err := compileFor(Guard(tc.opts), "amd64")
		if err != nil {
			t.Fatal(err)
		}
		if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
		if Notifies(c.Program) != (tc.opts.Ports != nil && tc.opts.Ports.Bind) {
			t.Errorf("%s: Notifies is %v", tc.name, Notifies(c.Program))
		}
	}
}

// The guard compiles for arm64 too, where open, creat, chmod and mknod do
// not exist.
func TestGuardOnArm64(t *testing.T) {
	c, err := compileFor(Guard(GuardOptions{Ports: &PortGuard{Connect: true, Bind: true}}), "arm64")
	if err != nil {
		t.Fatal(err)
	}
	const fchmodat, socket = 53, 198
	if got := run(t, c.Program, auditArchAarch64, fchmodat, [6]uint64{0, 0, 0o4755}); got != eperm1 {
		t.Errorf("arm64 fchmodat 4755: %#x", got)
	}
	if got := run(t, c.Program, auditArchAarch64, socket, [6]uint64{2, 1, 262}); got != retErrno|errEPROTONOSUPPRT {
		t.Errorf("arm64 mptcp: %#x", got)
	}
}

func TestGuardNames(t *testing.T) {
	for _, tc := range []struct {
		opts GuardOptions
		want string
	}{
		{GuardOptions{}, "no-setid"},
		{GuardOptions{NoNetwork: true}, "no-setid no-network"},
		{GuardOptions{Ports: &PortGuard{}}, "no-setid inet-tcp-udp-only"},
		{GuardOptions{Ports: &PortGuard{Connect: true, Bind: true}}, "no-setid inet-tcp-udp-only no-tcp-fastopen listen-checked"},
	} {
		got := ""
		for i, n := range tc.opts.Names() {
			if i > 0 {
				got += " "
			}
			got += n
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.opts, got, tc.want)
		}
	}
}
