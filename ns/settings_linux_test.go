package ns

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A filter that refuses clone with CLONE_NEWUSER is seen as such; without
// one, the kernel's own EINVAL comes back. The filtered case runs in a
// child under the filter (NSRUN_NS_TEST_FILTER set by the test itself).
func TestSeccompRefusesUserns(t *testing.T) {
	if os.Getenv("NSRUN_NS_TEST_FILTER") == "1" {
		if err := loadNoNewUser(); err != nil {
			t.Fatal(err)
		}
		if !seccompRefusesUserns() {
			t.Error("a filter refusing CLONE_NEWUSER was not seen")
		}
		return
	}
	if seccompRefusesUserns() {
		t.Fatal("no filter here, but the probe says one refuses user namespaces")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSeccompRefusesUserns$", "-test.v")
	cmd.Env = append(os.Environ(), "NSRUN_NS_TEST_FILTER=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("under the filter: %v\n%s", err, out)
	}
}

// loadNoNewUser puts a filter on every thread of the test process that
// refuses clone with CLONE_NEWUSER, as Docker's profile does.
func loadNoNewUser() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 3, K: unix.SYS_CLONE},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 16}, // low half of args[0]
		{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, Jt: 0, Jf: 1, K: unix.CLONE_NEWUSER},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}
