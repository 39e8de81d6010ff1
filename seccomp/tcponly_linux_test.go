//go:build linux && amd64

package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestTCPOnlyConstantsAreTheKernels(t *testing.T) {
	if afInet != unix.AF_INET || unix.AF_INET6&^8 != unix.AF_INET || ipprotoTCP != unix.IPPROTO_TCP || msgFastOpen != unix.MSG_FASTOPEN {
		t.Error("TCPOnly's socket constants differ from the kernel's")
	}
}

func TestTCPOnlyFilterDecisions(t *testing.T) {
	c, err := compileFor(TCPOnly(), "amd64")
	if err != nil {
		t.Fatal(err)
	}
	const eacces = retErrno | errEACCES
	for _, tc := range []struct {
		name string
		nr   uint32
		args [6]uint64
		want uint32
	}{
		{"socket inet stream", unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, allow},
		{"socket inet6 stream tcp", unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, allow},
		{"socket inet datagram", unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_DGRAM}, eacces},
		{"socket inet6 datagram", unix.SYS_SOCKET, [6]uint64{unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK}, eacces},
		{"socket inet raw", unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_RAW}, eacces},
		{"socket inet seqpacket", unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_SEQPACKET}, eacces},
		{"socket inet stream sctp", unix.SYS_SOCKET, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, eacces},
		{"socket unix datagram", unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, allow},
		{"sendto", unix.SYS_SENDTO, [6]uint64{3, 0x1000, 1, 0, 0, 0}, allow},
		{"sendto fast open", unix.SYS_SENDTO, [6]uint64{3, 0x1000, 1, unix.MSG_FASTOPEN, 0x2000, 16}, eacces},
		{"sendmsg fast open", unix.SYS_SENDMSG, [6]uint64{3, 0x1000, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL}, eacces},
		{"sendmmsg fast open", unix.SYS_SENDMMSG, [6]uint64{3, 0x1000, 2, unix.MSG_FASTOPEN}, eacces},
		{"getpid", unix.SYS_GETPID, [6]uint64{}, allow},
	} {
		if got := run(t, c.Program, auditArchX86_64, tc.nr, tc.args); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
}
