//go:build linux

package integration

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestNetNoneHasOnlyLoopbackUp(t *testing.T) {
	expect(t, "interfaces", helper(t, nil, "ifaces"), "lo:up")
	expect(t, "loopback tcp", helper(t, nil, "loopback"), "ok")
}

func TestNetHostSharesTheNetwork(t *testing.T) {
	host, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	got := helper(t, []string{"--net", "host"}, "ifaces")
	if len(host) > 1 && got == "lo:up" {
		t.Errorf("--net host shows only lo")
	}
	want := readFile(t, "/etc/resolv.conf")
	r := run(t, "/", "--net", "host", "--", "/bin/cat", "/etc/resolv.conf")
	expect(t, "resolv.conf", r.stdout+"\n", want)
}

func TestHostUnixSocketsUnreachable(t *testing.T) {
	need(t)
	// A socket under /run is hidden by the private /run.
	dir, err := os.MkdirTemp("/run", "nsrun-test-")
	if err != nil {
		t.Skip("cannot create a socket under /run:", err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o777)
	expect(t, "dial a host socket in /run", helper(t, nil, "dial-unix", sock), "ENOENT")
	// A visible socket is hidden by --deny.
	ws := workspace(t)
	vis := filepath.Join("/var/tmp", filepath.Base(ws)+".sock")
	ln2, err := net.Listen("unix", vis)
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	os.Chmod(vis, 0o777)
	expect(t, "dial a visible socket", helper(t, nil, "dial-unix", vis), "ok")
	if got := helper(t, []string{"--deny", vis}, "dial-unix", vis); got != "EACCES" && got != "ECONNREFUSED" {
		t.Errorf("dial a denied socket: got %s, want EACCES or ECONNREFUSED", got)
	}
}
