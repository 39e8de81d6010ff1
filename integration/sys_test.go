//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hostInterfaces lists the host's network interfaces as its /sys shows them.
func hostInterfaces(t *testing.T) string {
	t.Helper()
	ents, err := os.ReadDir("/sys/class/net")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, "\n")
}

// /sys is a sysfs of the sandbox's own network namespace, read-only: only
// lo, none of the host's mounts under /sys (its cgroup tree); --sys host
// and --net host show the host's, read-only too.
func TestSysIsTheSandboxsOwn(t *testing.T) {
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	script := `ls /sys/class/net; ls -A /sys/fs/cgroup | wc -l; ` + helperBin + ` write /sys/kernel/nsrun-probe; ` +
		helperBin + ` write /sys/class/net/lo/mtu`
	r := run(t, ws, "--report", rep, "--", "/bin/sh", "-c", script)
	expect(t, "private /sys", r.stdout, "lo\n0\nEROFS\nEROFS")
	var got struct{ Filesystem struct{ Sys string } }
	decodeReport(t, rep, &got)
	expect(t, "report sys", got.Filesystem.Sys, "private")

	host := hostInterfaces(t)
	if host == "lo" {
		t.Fatal("the host has no interface but lo: nothing to tell the views apart")
	}
	for _, opts := range [][]string{{"--sys", "host"}, {"--net", "host"}} {
		r := run(t, ws, append(append([]string{"--report", rep}, opts...), "--", "/bin/sh", "-c",
			"ls /sys/class/net; "+helperBin+" write /sys/kernel/nsrun-probe")...)
		expect(t, strings.Join(opts, " "), r.stdout, host+"\nEROFS")
		decodeReport(t, rep, &got)
		expect(t, strings.Join(opts, " ")+": report sys", got.Filesystem.Sys, "host")
	}

	for _, tc := range []struct{ args []string }{
		{[]string{"--sys", "none"}},
		{[]string{"--ro", "/sys/class/net"}},
		{[]string{"--tmpfs", "/sys"}},
	} {
		r := run(t, ws, append(tc.args, "--", "/bin/true")...)
		if r.code != 125 || strings.Count(r.stderr, "\n") != 0 || !strings.Contains(r.stderr, tc.args[0]) {
			t.Errorf("%v: want exit 125 and one line naming the option: %v", tc.args, r)
		}
	}
}
