package ns

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestForbidder(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Settings
		uid  int
		want string
	}{
		{"all allowed", Settings{MaxUserNamespaces: "15000", UnprivilegedUsernsClone: "1", AppArmorRestrict: "0"}, 1000, ""},
		{"files missing", Settings{}, 1000, ""},
		{"max zero", Settings{MaxUserNamespaces: "0"}, 1000, "user.max_user_namespaces=0"},
		{"max zero stops root too", Settings{MaxUserNamespaces: "0\n"}, 0, "user.max_user_namespaces=0"},
		{"debian clone off", Settings{MaxUserNamespaces: "100", UnprivilegedUsernsClone: "0"}, 1000, "kernel.unprivileged_userns_clone=0"},
		{"debian clone off, root", Settings{UnprivilegedUsernsClone: "0"}, 0, ""},
		{"apparmor", Settings{AppArmorRestrict: "1"}, 1000, "kernel.apparmor_restrict_unprivileged_userns=1"},
		{"a container's seccomp profile, first", Settings{MaxUserNamespaces: "0", SeccompRefuses: true}, 0, "a seccomp filter on this process"},
	} {
		got := Forbidder(tc.s, tc.uid)
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestExplain(t *testing.T) {
	eperm := &os.SyscallError{Syscall: "clone", Err: syscall.EPERM}
	erofs := &os.PathError{Op: "open", Path: "/proc/1/uid_map", Err: syscall.EROFS}
	for _, tc := range []struct {
		err  error
		s    Settings
		uid  int
		want string
	}{
		{eperm, Settings{UnprivilegedUsernsClone: "0"}, 1000, "forbidden by kernel.unprivileged_userns_clone=0"},
		{erofs, Settings{}, 1000, "/proc is mounted read-only"},
		{eperm, Settings{}, 1000, ""},
	} {
		got := Explain(tc.err, tc.s, tc.uid)
		if !errors.Is(got, tc.err) {
			t.Errorf("Explain(%v) lost the error: %v", tc.err, got)
		}
		if tc.want == "" && got.Error() != tc.err.Error() || tc.want != "" && !strings.Contains(got.Error(), tc.want) {
			t.Errorf("Explain(%v, %+v) = %q, want it to say %q", tc.err, tc.s, got, tc.want)
		}
	}
}

func TestCheckID(t *testing.T) {
	for _, tc := range []struct {
		id int64
		ok bool
	}{{0, true}, {1000, true}, {NoID - 1, true}, {NoID, false}, {-1, false}, {1 << 40, false}} {
		if err := CheckID(tc.id); (err == nil) != tc.ok {
			t.Errorf("CheckID(%d) = %v", tc.id, err)
		}
	}
}
