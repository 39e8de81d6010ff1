package plan

import (
	"reflect"
	"testing"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/landlock"
	"github.com/nsrun/nsrun/mounts"
)

func TestFullGrantsFollowTheMountPlan(t *testing.T) {
	plan, err := mounts.Make(mounts.Input{Rules: []mounts.Rule{
		{Path: "/tmp", Access: mounts.Tmpfs, Dir: true},
		{Path: "/w", Access: mounts.ReadWrite, Dir: true},
		{Path: "/w/.git", Access: mounts.ReadOnly, Dir: true},
		{Path: "/home/me/.ssh", Access: mounts.Deny, Dir: true},
		{Path: "/etc/shadow", Access: mounts.Deny},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]landlock.FS{}
	for _, g := range FullGrants(plan) {
		got[g.Path] = g.Access
	}
	// The device ioctl right is on the sandbox's own nodes and terminals,
	// not on /dev itself.
	want := map[string]landlock.FS{
		"/": landlock.ReadExec, "/dev": Dev &^ landlock.IoctlDev, "/dev/pts": Dev, "/dev/shm": RW, "/proc": Proc,
		"/dev/null": Dev, "/dev/zero": Dev, "/dev/full": Dev, "/dev/random": Dev, "/dev/urandom": Dev, "/dev/tty": Dev,
		"/tmp": RW, "/w": RW, "/w/.git": landlock.ReadExec,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// A device a rule adds gets it on that node alone; an overlay is
	// writable.
	plan, err = mounts.Make(mounts.Input{
		Rules:   []mounts.Rule{{Path: "/ov", Access: mounts.Overlay, Dir: true}},
		Devices: []mounts.Node{{Path: "/dev/kvm", Source: "/dev/kvm"}, {Path: "/dev/dri/renderD128", Source: "/dev/dri/renderD128"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]landlock.FS{}
	for _, g := range FullGrants(plan) {
		got[g.Path] = g.Access
	}
	for p, a := range map[string]landlock.FS{"/dev/kvm": Dev, "/dev/dri/renderD128": Dev, "/ov": RW, "/dev": Dev &^ landlock.IoctlDev} {
		if got[p] != a {
			t.Errorf("%s: %v, want %v", p, got[p], a)
		}
	}
	if _, ok := got["/dev/dri"]; ok {
		t.Errorf("/dev/dri has a grant of its own: %v", got)
	}
}

func TestNetRequest(t *testing.T) {
	explicit, implied, ports := netRequest(&LayerRequest{
		HostNet: true,
		Connect: []launch.PortRange{{Proto: "tcp", First: 80, Last: 81}, {Proto: "udp", First: 53, Last: 53}},
		Bind:    []launch.PortRange{{Proto: "tcp", First: 8080, Last: 8080}},
	})
	if explicit != landlock.ConnectTCP|landlock.ConnectSendUDP|landlock.BindTCP || implied != landlock.BindUDP {
		t.Errorf("explicit %v, implied %v", explicit, implied)
	}
	want := []landlock.PortRule{{Port: 80, Access: landlock.ConnectTCP}, {Port: 81, Access: landlock.ConnectTCP},
		{Port: 53, Access: landlock.ConnectSendUDP}, {Port: 8080, Access: landlock.BindTCP}}
	if !reflect.DeepEqual(ports, want) {
		t.Errorf("ports %v", ports)
	}
	// TCP rules alone also handle UDP in the same direction: "the only
	// ports" leaves no protocol open.
	connect443 := &LayerRequest{HostNet: true, Connect: []launch.PortRange{{Proto: "tcp", First: 443, Last: 443}}}
	explicit, implied, _ = netRequest(connect443)
	if explicit != landlock.ConnectTCP || implied != landlock.ConnectSendUDP {
		t.Errorf("connect 443: explicit %v, implied %v", explicit, implied)
	}
	connect443.HostNet = false
	if _, implied, _ = netRequest(connect443); implied != 0 {
		t.Errorf("connect 443 in a network namespace: implied %v", implied)
	}
	if e, i, p := netRequest(&LayerRequest{}); e != 0 || i != 0 || p != nil {
		t.Errorf("no options: %v %v %v", e, i, p)
	}
}

func TestUnenforceablePort(t *testing.T) {
	p := &LayerRequest{
		Connect: []launch.PortRange{{Proto: "tcp", First: 443, Last: 443}, {Proto: "udp", First: 53, Last: 54}},
		Bind:    []launch.PortRange{{Proto: "tcp", First: 8080, Last: 8080}},
	}
	for _, tc := range []struct {
		handled landlock.Net
		want    string
	}{
		{landlock.ConnectTCP | landlock.BindTCP | landlock.ConnectSendUDP, ""},
		{landlock.ConnectTCP | landlock.BindTCP, "Policy.AllowConnect udp:53-54: UDP port rules need Landlock ABI 10"},
		{0, "Policy.AllowConnect tcp:443: TCP port rules need Landlock ABI 4"},
		{landlock.ConnectTCP | landlock.ConnectSendUDP, "Policy.AllowBind tcp:8080: TCP port rules need Landlock ABI 4"},
	} {
		got := ""
		if err := unenforceablePort(p, tc.handled); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("handled %v: %q, want %q", tc.handled, got, tc.want)
		}
	}
}
