package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The constants spelled out in bpf.go must be the kernel's.
func TestConstantsMatchTheKernel(t *testing.T) {
	for name, pair := range map[string][2]uint64{
		"ld":      {bpfLdWAbs, unix.BPF_LD | unix.BPF_W | unix.BPF_ABS},
		"jeq":     {bpfJeqK, unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K},
		"jge":     {bpfJgeK, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K},
		"ret":     {bpfRetK, unix.BPF_RET | unix.BPF_K},
		"kill":    {retKillProcess, unix.SECCOMP_RET_KILL_PROCESS},
		"errno":   {retErrno, unix.SECCOMP_RET_ERRNO},
		"allow":   {retAllow, unix.SECCOMP_RET_ALLOW},
		"notify":  {retUserNotif, unix.SECCOMP_RET_USER_NOTIF},
		"x86_64":  {auditArchX86_64, unix.AUDIT_ARCH_X86_64},
		"aarch64": {auditArchAarch64, unix.AUDIT_ARCH_AARCH64},
		"errno93": {eprotonosupport, uint64(unix.EPROTONOSUPPORT)},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: %#x, kernel %#x", name, pair[0], pair[1])
		}
	}
	if arches["amd64"].socket != unix.SYS_SOCKET && arches["arm64"].socket != unix.SYS_SOCKET {
		t.Error("socket(2) number")
	}
}
