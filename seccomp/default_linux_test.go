//go:build linux && amd64

package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

const (
	allow     = retAllow
	eperm1    = retErrno | errEPERM
	retENOSYS = retErrno | errENOSYS
	eafno     = retErrno | errEAFNOSUPPORT
	kill      = retKillProcess
)

func TestDefaultFilterDecisions(t *testing.T) {
	for _, allowUserns := range []bool{false, true} {
		c, err := compileFor(Default(Options{AllowUserns: allowUserns}), "amd64")
		if err != nil {
			t.Fatal(err)
		}
		ns := func(denied uint32) uint32 {
			if allowUserns {
				return allow
			}
			return denied
		}
		for _, tc := range []struct {
			name string
			arch uint32
			nr   uint32
			args [6]uint64
			want uint32
		}{
			{"getpid", auditArchX86_64, unix.SYS_GETPID, [6]uint64{}, allow},
			{"keyctl", auditArchX86_64, unix.SYS_KEYCTL, [6]uint64{}, eperm1},
			{"bpf", auditArchX86_64, unix.SYS_BPF, [6]uint64{}, eperm1},
			{"io_uring_setup", auditArchX86_64, unix.SYS_IO_URING_SETUP, [6]uint64{}, eperm1},
			{"mount", auditArchX86_64, unix.SYS_MOUNT, [6]uint64{}, ns(eperm1)},
			{"fsopen", auditArchX86_64, unix.SYS_FSOPEN, [6]uint64{}, ns(retENOSYS)},
			{"open_tree_attr (by number)", auditArchX86_64, 467, [6]uint64{}, ns(retENOSYS)},
			{"lsm_set_self_attr (by number)", auditArchX86_64, 460, [6]uint64{}, eperm1},
			{"clone3", auditArchX86_64, unix.SYS_CLONE3, [6]uint64{}, retENOSYS},
			{"clone for a thread", auditArchX86_64, unix.SYS_CLONE, [6]uint64{0x3d0f00}, allow},
			{"clone a user namespace", auditArchX86_64, unix.SYS_CLONE, [6]uint64{unix.CLONE_NEWUSER | 0x11}, ns(eperm1)},
			{"clone a net namespace, high bits", auditArchX86_64, unix.SYS_CLONE, [6]uint64{unix.CLONE_NEWNET | 1<<40}, ns(eperm1)},
			{"unshare mount", auditArchX86_64, unix.SYS_UNSHARE, [6]uint64{unix.CLONE_NEWNS}, ns(eperm1)},
			{"unshare files", auditArchX86_64, unix.SYS_UNSHARE, [6]uint64{unix.CLONE_FILES}, allow},
			{"setns", auditArchX86_64, unix.SYS_SETNS, [6]uint64{3, 0}, ns(eperm1)},
			{"ioctl TIOCSTI", auditArchX86_64, unix.SYS_IOCTL, [6]uint64{0, tiocsti}, eperm1},
			{"ioctl TIOCSTI with high bits", auditArchX86_64, unix.SYS_IOCTL, [6]uint64{0, tiocsti | 1<<32}, eperm1},
			{"ioctl TIOCLINUX", auditArchX86_64, unix.SYS_IOCTL, [6]uint64{0, tioclinux}, eperm1},
			{"ioctl TCGETS", auditArchX86_64, unix.SYS_IOCTL, [6]uint64{0, unix.TCGETS}, allow},
			{"socket inet", auditArchX86_64, unix.SYS_SOCKET, [6]uint64{unix.AF_INET}, allow},
			{"socket unix", auditArchX86_64, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX}, allow},
			{"socket netlink", auditArchX86_64, unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK}, allow},
			{"socket vsock", auditArchX86_64, unix.SYS_SOCKET, [6]uint64{unix.AF_VSOCK}, eafno},
			{"socket vsock with high bits", auditArchX86_64, unix.SYS_SOCKET, [6]uint64{unix.AF_VSOCK | 1<<32}, eafno},
			{"socket packet", auditArchX86_64, unix.SYS_SOCKET, [6]uint64{unix.AF_PACKET}, eafno},
			{"socketpair alg", auditArchX86_64, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_ALG}, eafno},
			{"personality query", auditArchX86_64, unix.SYS_PERSONALITY, [6]uint64{0xffffffff}, allow},
			{"personality linux", auditArchX86_64, unix.SYS_PERSONALITY, [6]uint64{0}, allow},
			{"personality no-randomize", auditArchX86_64, unix.SYS_PERSONALITY, [6]uint64{0x0040000}, eperm1},
			{"ptrace", auditArchX86_64, unix.SYS_PTRACE, [6]uint64{}, allow},
			{"x32 getpid", auditArchX86_64, 0x40000000 | 39, [6]uint64{}, kill},
			{"syscall(-1)", auditArchX86_64, 0xffffffff, [6]uint64{}, allow},
			{"i386 keyctl", 0x40000003, 288, [6]uint64{}, kill},
		} {
			if got := run(t, c.Program, tc.arch, tc.nr, tc.args); got != tc.want {
				t.Errorf("allow-userns %v, %s: %#x, want %#x", allowUserns, tc.name, got, tc.want)
			}
		}
		if c.Blocked < 45 {
			t.Errorf("only %d syscalls blocked", c.Blocked)
		}
	}
}

func TestEveryDefaultRuleHasAReasonAndResolves(t *testing.T) {
	for _, r := range Default(Options{}).Rules {
		if r.Reason == "" {
			t.Errorf("%v has no reason", r.Names)
		}
		for _, n := range r.Names {
			if _, ok := syscallsAMD64.lookup(n); !ok {
				t.Errorf("%s is not an x86_64 call", n)
			}
		}
	}
}
