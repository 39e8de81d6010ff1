//go:build linux

package integration

import (
	_ "embed"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

//go:embed testdata/containers-seccomp.json
var podmanProfile string

// podman's and CRI-O's profile loads and runs real programs, and the
// kernel decides its calls as runc and crun would have it: setns, allowed
// first and then refused in the profile, stays allowed (the kernel then
// says EBADF for a bad descriptor), the audit netlink socket gets EINVAL,
// calls the profile does not list ENOSYS, its default.
func TestPodmanProfile(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the syscall numbers below are amd64's")
	}
	ws := workspace(t)
	profile := filepath.Join(ws, "containers-seccomp.json")
	writeFile(t, profile, podmanProfile)
	r := run(t, ws, "--rw", ws, "--seccomp", profile, "--", "/bin/bash", "-c",
		"git init -q repo && python3 -c 'print(6*7)'")
	if r.code != 0 || r.stdout != "42" || !strings.Contains(r.stderr, "setns: a rule with action errno 1") {
		t.Errorf("under podman's profile: %v", r)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"setns", raw(unix.SYS_SETNS, 0xffffffff, 0), "EBADF"},
		{"audit socket", raw(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT), "EINVAL"},
		{"route socket", raw(unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE), "ok"},
		{"bpf", raw(unix.SYS_BPF, 0), "EPERM"},
		{"kexec_file_load (refused by name)", raw(unix.SYS_KEXEC_FILE_LOAD), "EPERM"},
		{"io_uring_setup (not listed)", raw(unix.SYS_IO_URING_SETUP, 8, 0), "ENOSYS"},
		{"no such call", raw(1000), "ENOSYS"},
	} {
		if got, code := sysc(t, []string{"-q", "--seccomp", profile}, tc.args...); got != tc.want || code != 0 {
			t.Errorf("%s: %q (exit %d), want %s", tc.name, got, code, tc.want)
		}
	}
}
