package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// TestNeitherMessage: where neither hierarchy serves, the message is one
// short line that says what would make it work.
func TestNeitherMessage(t *testing.T) {
	denied := &Error{Controller: "pids", Err: fmt.Errorf("create /sys/fs/cgroup/pids/nsrun-14454-1796167207008102055: %w",
		&fs.PathError{Op: "mkdir", Path: "/sys/fs/cgroup/pids/nsrun-14454-1796167207008102055", Err: fs.ErrPermission})}
	err := neither("pids", "cgroup v2 at /sys/fs/cgroup/unified lacks the pids controller (it has: hugetlb)", denied)
	want := "pids: cgroup v2 at /sys/fs/cgroup/unified lacks the pids controller (it has: hugetlb), and this user may not make a group in cgroup v1's /sys/fs/cgroup/pids; " +
		"as a user, run nsrun in a delegated cgroup v2 subtree: systemd-run --user --scope -p Delegate=yes -- nsrun ..."
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Error("the cause is lost")
	}
	// Another v1 failure is said as it is.
	other := errors.New("no pids controller in cgroup v2 nor v1 on this host")
	if got := neither("pids", "no cgroup v2 hierarchy is mounted", other).Error(); !strings.HasSuffix(got, "and cgroup v1 failed too: no pids controller in cgroup v2 nor v1 on this host") {
		t.Errorf("got %s", got)
	}
}
