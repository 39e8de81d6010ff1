//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A host character device is in the sandbox's /dev only when a rule names
// it, and then works as on the host (the host's permissions decide who may
// open it): /dev/kvm answers KVM's ioctls. Block devices need --dev-block.
// The device is the first of several that this host has, so the test runs
// on hosts without KVM too; it names the one it used.
func TestDevicesByRule(t *testing.T) {
	devs := hostCharDevices(t)
	if len(devs) < 2 {
		t.Skipf("this host has %d character devices outside nsrun's own /dev (%v): a rule's device and one left out need two", len(devs), devs)
	}
	dev, other := devs[0], devs[1]
	t.Logf("device shown: %s; device left out: %s", dev, other)
	op, want := "open", "ok"
	if dev == "/dev/kvm" {
		op, want = "kvm", "api 12"
	}
	expect(t, "no rule", helper(t, nil, op, dev), "ENOENT")
	if unixAccess(dev) != nil {
		want = "EACCES" // as on the host, for this user
	}
	ws := workspace(t)
	rep := filepath.Join(ws, "r.json")
	expect(t, "--dev "+dev, helper(t, []string{"--dev", dev, "--report", rep}, op, dev), want)
	var got struct{ Filesystem struct{ Devices []string } }
	decodeReport(t, rep, &got)
	if strings.Join(got.Filesystem.Devices, " ") != dev {
		t.Errorf("report devices: %v", got.Filesystem.Devices)
	}
	// Another name for it, under /dev; nothing else of the host's /dev.
	expect(t, "--dev-bind", helper(t, []string{"--dev-bind", dev, "/dev/virt/dev0"}, "kind", "/dev/virt/dev0"), "char")
	expect(t, "the rest of /dev", helper(t, []string{"--dev", dev}, "kind", other), "ENOENT")

	block := ""
	for _, b := range []string{"/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/loop0"} {
		if fi, err := os.Stat(b); err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0 {
			block = b
			break
		}
	}
	for _, tc := range []struct {
		what string
		args []string
		want []string
	}{
		{"the whole /dev", []string{"--dev", "/dev"}, []string{"--dev /dev", "always its own"}},
		{"a file", []string{"--dev", "/etc/hostname"}, []string{"--dev /etc/hostname", "not a character device"}},
		{"outside /dev", []string{"--dev-bind", dev, "/opt/dev0"}, []string{"--dev-bind " + dev + " /opt/dev0", "not under /dev"}},
		{"the sandbox's own", []string{"--dev-bind", dev, "/dev/pts/9"}, []string{"/dev/pts", "the sandbox's own"}},
		{"two devices at one place", []string{"--dev-bind", dev, "/dev/x", "--dev-bind", "/dev/zero", "/dev/x"}, []string{"/dev/x", "two different things"}},
		{"a block device as --dev", []string{"--dev", block}, []string{"--dev " + block, "block device", "--dev-block"}},
		{"a char device as --dev-block", []string{"--dev-block", dev}, []string{"--dev-block " + dev, "not a block device"}},
	} {
		if tc.args[1] == "" {
			t.Logf("%s: not tried, this host has none of /dev/vda, /dev/sda, /dev/nvme0n1, /dev/loop0", tc.what)
			continue
		}
		failsWith(t, tc.what, run(t, ws, append(tc.args, "--", "/bin/true")...), tc.want...)
	}
}

// --dev-block shows a block device, asked for by that name: a loop device
// of a file here (making one takes root).
func TestBlockDevice(t *testing.T) {
	need(t)
	if os.Getuid() != 0 || os.Getenv("NSRUN_SHAPE") != "" {
		t.Skip("making a loop device takes root")
	}
	img := filepath.Join(workspace(t), "disk")
	writeFile(t, img, "NSRUN block device test\n"+strings.Repeat("\x00", 4096))
	out, err := exec.Command("losetup", "--find", "--show", img).Output()
	if err != nil {
		t.Skip("no loop device:", err)
	}
	loop := strings.TrimSpace(string(out))
	defer exec.Command("losetup", "-d", loop).Run()
	expect(t, "no rule", helper(t, nil, "read-block", loop), "ENOENT")
	expect(t, "--dev-block", helper(t, []string{"--dev-block", loop}, "read-block", loop), "NSRU")
}

// /dev/fuse: the device opens inside; mounting a FUSE filesystem needs
// mount(2), which nsrun's seccomp filter and Landlock refuse, so it works
// in a user namespace of the payload's own (--allow-userns --landlock off),
// as fuse-overlayfs does there. fusermount is set-uid and gains nothing in
// a sandbox.
func TestFUSE(t *testing.T) {
	need(t)
	node := os.Getenv("NSRUN_FUSE") // a copy of /dev/fuse this user may open
	if node == "" {
		node = "/dev/fuse"
	}
	if _, err := os.Stat(node); err != nil {
		t.Skip("no /dev/fuse:", err)
	}
	if unixAccess(node) != nil {
		t.Skip("this user may not open " + node + " (scripts/test.sh passes a copy as NSRUN_FUSE)")
	}
	dev := []string{"--dev-bind", node, "/dev/fuse"}
	expect(t, "open inside", helper(t, dev, "open", "/dev/fuse"), "ok")
	if _, err := exec.LookPath("fuse-overlayfs"); err != nil {
		t.Skip("no fuse-overlayfs (scripts/setup.sh installs it):", err)
	}
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "lower", "f"), "lower\n")
	for _, d := range []string{"upper", "work", "mnt"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mount := "cd " + ws + " && fuse-overlayfs -o lowerdir=lower,upperdir=upper,workdir=work mnt"
	r := run(t, ws, append(append([]string{"--rw", ws}, dev...), "--", "/bin/sh", "-c", mount)...)
	if r.code == 0 || !strings.Contains(r.stderr, "not permitted") {
		t.Errorf("a FUSE mount without a user namespace of the payload's own: %v", r)
	}
	if os.Getuid() == 0 {
		t.Skip("a sandbox of the host's root cannot nest a user namespace (TestNestedSandbox): the mount is tried as the unprivileged user")
	}
	r = run(t, ws, append(append([]string{"--rw", ws, "--allow-userns", "--landlock", "off"}, dev...), "--", "unshare", "-rm", "/bin/sh", "-c",
		mount+" && cat mnt/f && echo new > mnt/f && fusermount3 -u mnt; cat upper/f")...)
	expect(t, "fuse-overlayfs in the payload's own namespaces", r.stdout, "lower\nnew")
	expect(t, "the lower layer", readFile(t, filepath.Join(ws, "lower", "f")), "lower\n")
}

func unixAccess(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err == nil {
		f.Close()
	}
	return err
}

// hostCharDevices lists the host's character devices that nsrun's own /dev
// does not have, those whose behaviour the tests know first.
func hostCharDevices(t *testing.T) []string {
	t.Helper()
	own := map[string]bool{"null": true, "zero": true, "full": true, "random": true, "urandom": true,
		"tty": true, "console": true, "ptmx": true}
	var devs []string
	for _, p := range []string{"/dev/kvm", "/dev/fuse", "/dev/net/tun", "/dev/loop-control"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			devs = append(devs, p)
		}
	}
	ents, err := os.ReadDir("/dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := "/dev/" + e.Name()
		if own[e.Name()] || e.Type()&os.ModeCharDevice == 0 || slices.Contains(devs, p) {
			continue
		}
		devs = append(devs, p)
	}
	return devs
}
