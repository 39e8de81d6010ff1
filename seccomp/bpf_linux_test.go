package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The constants spelled out in bpf.go must be the kernel's.
func TestConstantsMatchTheKernel(t *testing.T) {
	for name, pair := range map[string][2]uint64{
		"ld":              {bpfLdWAbs, unix.BPF_LD | unix.BPF_W | unix.BPF_ABS},
		"jeq":             {bpfJeqK, unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K},
		"jge":             {bpfJgeK, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K},
		"ret":             {bpfRetK, unix.BPF_RET | unix.BPF_K},
		"kill":            {retKillProcess, unix.SECCOMP_RET_KILL_PROCESS},
		"errno":           {retErrno, unix.SECCOMP_RET_ERRNO},
		"allow":           {retAllow, unix.SECCOMP_RET_ALLOW},
		"x86_64":          {auditArchX86_64, unix.AUDIT_ARCH_X86_64},
		"aarch64":         {auditArchAarch64, unix.AUDIT_ARCH_AARCH64},
		"notify":          {retUserNotif, unix.SECCOMP_RET_USER_NOTIF},
		"EPROTONOSUPPORT": {errEPROTONOSUPPRT, uint64(unix.EPROTONOSUPPORT)},
		"EOPNOTSUPP":      {errEOPNOTSUPP, uint64(unix.EOPNOTSUPP)},
		"S_ISUID":         {sISUID, unix.S_ISUID},
		"S_ISGID":         {sISGID, unix.S_ISGID},
		"O_CREAT":         {oCREAT, unix.O_CREAT},
		"__O_TMPFILE":     {oTMPFILE, unix.O_TMPFILE &^ unix.O_DIRECTORY},
		"MSG_FASTOPEN":    {msgFastOpen, unix.MSG_FASTOPEN},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: %#x, kernel %#x", name, pair[0], pair[1])
		}
	}
}
