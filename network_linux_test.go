package nsrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer answers "hello HOST" on the host's 127.0.0.1 and counts
// requests.
func testServer(t *testing.T) (port int, requests func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		host, _, _ := net.SplitHostPort(r.Host)
		fmt.Fprintf(w, "hello %s", host)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port, func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

func runSh(t *testing.T, p *Policy, script string) (string, *Report) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := Command(p, "/bin/sh", "-c", script)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s%s", err, out.String(), errb.String())
	}
	return strings.TrimSpace(out.String()), cmd.Report()
}

func TestLibraryHostHook(t *testing.T) {
	needSandbox(t)
	port, requests := testServer(t)
	var mu sync.Mutex
	asked := map[string]int{}
	p := &Policy{
		HostAllowed: func(host string, po int) bool {
			mu.Lock()
			asked[fmt.Sprintf("%s:%d", host, po)]++
			mu.Unlock()
			return host == "hooked.test"
		},
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
		AllowPrivateHosts: true,
	}
	url := fmt.Sprintf("hooked.test:%d/", port)
	out, rep := runSh(t, p, fmt.Sprintf(`for i in 1 2 3; do curl -sS -f http://%s; echo; done
		curl -sS -f -o /dev/null http://other.test:%d/ 2>/dev/null; echo "other $?"
		getent hosts hooked.test >/dev/null; echo "dns $?"`, url, port))
	if out != "hello hooked.test\nhello hooked.test\nhello hooked.test\nother 22\ndns 0" {
		t.Errorf("output %q", out)
	}
	mu.Lock()
	defer mu.Unlock()
	for k, n := range asked {
		if n != 1 {
			t.Errorf("the hook was asked about %s %d times", k, n)
		}
	}
	for _, k := range []string{fmt.Sprintf("hooked.test:%d", port), fmt.Sprintf("other.test:%d", port), "hooked.test:80", "hooked.test:443"} {
		if asked[k] != 1 {
			t.Errorf("the hook was not asked about %s: %v", k, asked)
		}
	}
	if requests() != 3 {
		t.Errorf("%d requests reached the server", requests())
	}
	if rep.Network == nil || rep.Network.Mode != "filtered" || len(rep.Network.Connections) != 1 || rep.Network.Connections[0].Count != 3 {
		t.Errorf("report %+v", rep.Network)
	}
}

func TestLibraryDialer(t *testing.T) {
	needSandbox(t)
	port, requests := testServer(t)
	var mu sync.Mutex
	var dialed []string
	p := &Policy{
		AllowHosts: []string{"corp.test:8443"},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, network+" "+address)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
		},
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return nil, errors.New("a dialer's sandbox must not resolve names itself")
		},
	}
	out, _ := runSh(t, p, `curl -sS -f http://corp.test:8443/; echo; curl -sS -f --noproxy '*' http://corp.test:8443/`)
	if out != "hello corp.test\nhello corp.test" || requests() != 2 {
		t.Errorf("output %q, %d requests", out, requests())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 2 || dialed[0] != "tcp corp.test:8443" || dialed[1] != "tcp corp.test:8443" {
		t.Errorf("dialed %q", dialed)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// A burst of 200 connections at once, through the proxy and straight,
// with a published port and a host port, leaves no descriptor behind,
// and nothing listening.
func TestLibraryNetworkLeavesNothing(t *testing.T) {
	needSandbox(t)
	port, requests := testServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := netip.MustParseAddrPort(ln.Addr().String())
	ln.Close()
	before := openFDs(t)
	p := &Policy{
		AllowHosts:        []string{fmt.Sprintf("reg.test:%d", port)},
		AddHosts:          []string{"reg.test=127.0.0.1"},
		AllowPrivateHosts: true,
		Publish:           []Publish{{Host: pub, Port: 8080}},
		HostPorts:         []PortRange{{Proto: "tcp", First: uint16(port), Last: uint16(port)}},
	}
	var urls strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&urls, " -o /dev/null http://reg.test:%d/%d", port, i)
	}
	out, rep := runSh(t, p, fmt.Sprintf(`curl -sS -f -Z --parallel-max 200%s && echo proxied
		curl -sS -f --noproxy '*' -Z --parallel-max 200%s && echo straight
		curl -sS -f --noproxy '*' http://127.0.0.1:%d/ && echo`, urls.String(), urls.String(), port))
	if out != "proxied\nstraight\nhello 127.0.0.1" {
		t.Errorf("output %q", out)
	}
	if requests() != 401 {
		t.Errorf("%d requests reached the server, want 401", requests())
	}
	// Each proxied request has a connection of its own; straight to the
	// name, curl may send several on one.
	if c := rep.Network.Connections; len(c) != 2 || c[0].Count != 1 || c[1].Count <= 200 || c[1].Count > 400 {
		t.Errorf("connections %+v", c)
	}
	// Go keeps the pipes of its splice(2) copies in a pool that garbage
	// collection empties (their finalizers close them), and the test
	// server closes its side in its own time.
	deadline := time.Now().Add(10 * time.Second)
	for openFDs(t) > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if after := openFDs(t); after > before {
		kinds := map[string]int{}
		ents, _ := os.ReadDir("/proc/self/fd")
		for _, e := range ents {
			l, _ := os.Readlink("/proc/self/fd/" + e.Name())
			if i := strings.IndexByte(l, '['); i > 0 {
				l = l[:i]
			}
			kinds[l]++
		}
		t.Errorf("%d descriptors open after the sandbox, %d before: %v", after, before, kinds)
	}
	if c, err := net.Dial("tcp", pub.String()); err == nil {
		c.Close()
		t.Error("the published port still listens after Wait")
	}
}

func TestLibraryNetworkRefusals(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{AllowHosts: []string{""}}, `Policy.AllowHosts: empty pattern`},
		{Policy{AllowHosts: []string{"a.test"}, Net: NetHost}, "Policy.AllowHosts: filters the sandbox's own network namespace, and Policy.Net = NetHost has none"},
		{Policy{HostAllowed: func(string, int) bool { return true }, Net: NetHost}, "Policy.AllowHosts: filters"},
		{Policy{HostPorts: []PortRange{{Proto: "udp", First: 53, Last: 53}}}, `Policy.HostPorts "53": want TCP ports`},
		{Policy{Resolve: func(context.Context, string) ([]netip.Addr, error) { return nil, nil }}, "Policy.Resolve: means nothing without Policy.AllowHosts"},
	} {
		err := Command(&tc.p, "/bin/true").Run()
		var ne *NetError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != ExitSetup {
			t.Errorf("%+v: %v, want a NetError saying %q", tc.p, err, tc.want)
		}
	}
}
