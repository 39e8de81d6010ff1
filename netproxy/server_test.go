package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testNetwork stands for a sandbox's network namespace: each address
// "inside" is a listener on an ephemeral port of the host's loopback, and
// dialling inside dials what the test placed there.
type testNetwork struct {
	mu      sync.Mutex
	streams map[netip.AddrPort]string // inside address -> real address
	packets map[netip.AddrPort]string
	servers map[netip.AddrPort]string // for Dial: servers of the "payload"
}

func newTestNetwork() *testNetwork {
	return &testNetwork{streams: map[netip.AddrPort]string{}, packets: map[netip.AddrPort]string{}, servers: map[netip.AddrPort]string{}}
}

func (n *testNetwork) Listen(ap netip.AddrPort) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.streams[ap] = ln.Addr().String()
	n.mu.Unlock()
	return ln, nil
}

func (n *testNetwork) ListenPacket(ap netip.AddrPort) (net.PacketConn, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.packets[ap] = pc.LocalAddr().String()
	n.mu.Unlock()
	return pc, nil
}

func (n *testNetwork) Dial(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
	n.mu.Lock()
	real, ok := n.servers[ap]
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("connect %s: connection refused", ap)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", real)
}

// dial connects to what listens at the inside address ap.
func (n *testNetwork) dial(t *testing.T, ap string) net.Conn {
	t.Helper()
	c, err := n.tryDial(t, ap)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tryDial is dial for a test that expects the connection may be reset
// before the dial returns.
func (n *testNetwork) tryDial(t *testing.T, ap string) (net.Conn, error) {
	t.Helper()
	n.mu.Lock()
	real, ok := n.streams[netip.MustParseAddrPort(ap)]
	n.mu.Unlock()
	if !ok {
		t.Fatalf("nothing listens inside at %s", ap)
	}
	return net.Dial("tcp", real)
}

func (n *testNetwork) listening(ap string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.streams[netip.MustParseAddrPort(ap)]
	return ok
}

// echoServer answers each line with "PORT: line", and closes after one.
func echoServer(t *testing.T) (port uint16, seen func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var lines []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				l, _ := bufio.NewReader(c).ReadString('\n')
				mu.Lock()
				lines = append(lines, l)
				mu.Unlock()
				fmt.Fprintf(c, "echo: %s", l)
			}()
		}
	}()
	ap := netip.MustParseAddrPort(ln.Addr().String())
	return ap.Port(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

type harness struct {
	t    *testing.T
	net  *testNetwork
	srv  *Server
	port uint16
	seen func() []string
	logs []string
	mu   sync.Mutex
}

// start serves svc.test (and *.wild.test) on the echo server's port,
// mapped to 127.0.0.1, which an address rule allows; priv.test resolves to
// 10.0.0.1 and meta.test to 169.254.169.254.
func start(t *testing.T, patch func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, net: newTestNetwork()}
	h.port, h.seen = echoServer(t)
	p := fmt.Sprint(h.port)
	pol, err := ParsePolicy([]string{"svc.test:" + p, "*.wild.test:" + p, "priv.test:" + p, "meta.test", "127.0.0.1:" + p}, false)
	if err != nil {
		t.Fatal(err)
	}
	lo := netip.MustParseAddr("127.0.0.1")
	cfg := Config{Policy: pol, Inside: h.net,
		Hosts: map[string][]netip.Addr{"svc.test": {lo}, "a.wild.test": {lo}, "priv.test": {netip.MustParseAddr("10.0.0.1")}, "meta.test": {netip.MustParseAddr("169.254.169.254")}},
		Log: func(l string) {
			h.mu.Lock()
			h.logs = append(h.logs, l)
			h.mu.Unlock()
		}}
	if patch != nil {
		patch(&cfg)
	}
	if h.srv, err = Start(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.srv.Close)
	return h
}

// connect sends a CONNECT for target through the proxy and returns the
// status line and the connection.
func (h *harness) connect(target string, headers ...string) (string, net.Conn, *bufio.Reader) {
	h.t.Helper()
	c := h.net.dial(h.t, ProxyAddr.String())
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n%s\r\n", target, strings.Join(headers, ""))
	br := bufio.NewReader(c)
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	status, _ := br.ReadString('\n')
	for {
		l, err := br.ReadString('\n')
		if err != nil || l == "\r\n" {
			break
		}
	}
	return strings.TrimSpace(status), c, br
}

func TestProxyConnect(t *testing.T) {
	h := start(t, nil)
	p := fmt.Sprint(h.port)
	status, c, br := h.connect("svc.test:"+p, "Host: svc.test:"+p+"\r\n")
	if status != "HTTP/1.1 200 Connection established" {
		t.Fatalf("status %q", status)
	}
	fmt.Fprintf(c, "hello\n")
	if l, _ := br.ReadString('\n'); l != "echo: hello\n" {
		t.Errorf("through the tunnel: %q", l)
	}
	c.Close()

	for _, tc := range []struct{ target, host, why string }{
		{"evil.test:" + p, "evil.test", "no rule allows it"},
		{"svc.test:1", "svc.test", "no rule allows it"},
		{"10.0.0.1:" + p, "10.0.0.1", "no rule allows it"},
		{"priv.test:" + p, "priv.test", "10.0.0.1, a private address"},
		{"meta.test:80", "meta.test", "169.254.169.254, a link-local address"},
	} {
		start := time.Now()
		status, c, _ := h.connect(tc.target)
		c.Close()
		if !strings.HasPrefix(status, "HTTP/1.1 403") {
			t.Errorf("CONNECT %s: %q, want 403", tc.target, status)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("CONNECT %s took %v", tc.target, d)
		}
		found := false
		h.mu.Lock()
		for _, l := range h.logs {
			found = found || strings.Contains(l, "denied "+tc.host) && strings.Contains(l, tc.why)
		}
		h.mu.Unlock()
		if !found {
			t.Errorf("CONNECT %s: no log saying %q in %q", tc.target, tc.why, h.logs)
		}
	}
	// Smuggling: the Host header must name the host connected to.
	status, c, _ = h.connect("svc.test:"+p, "Host: evil.test\r\n")
	c.Close()
	if !strings.HasPrefix(status, "HTTP/1.1 403") {
		t.Errorf("CONNECT with another Host: %q", status)
	}
	if n := len(h.seen()); n != 1 {
		t.Errorf("the server saw %d connections, want 1", n)
	}
	carried, denied := h.srv.Stats()
	if len(carried) != 1 || carried[0] != (Count{Host: "svc.test", Port: int(h.port), Count: 1}) {
		t.Errorf("carried %v", carried)
	}
	if len(denied) != 6 {
		t.Errorf("denied %v", denied)
	}
}

func TestProxyPlainHTTPAndSocks(t *testing.T) {
	h := start(t, nil)
	p := fmt.Sprint(h.port)
	c := h.net.dial(t, ProxyAddr.String())
	fmt.Fprintf(c, "GET http://svc.test:%s/x HTTP/1.1\r\nHost: svc.test:%s\r\nProxy-Connection: keep-alive\r\n\r\n", p, p)
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != "echo: GET /x HTTP/1.1\r\n" {
		t.Errorf("plain request: %q", got)
	}

	socks := func(req []byte) ([]byte, net.Conn) {
		c := h.net.dial(t, ProxyAddr.String())
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(append([]byte{5, 1, 0}, req...))
		reply := make([]byte, 12)
		n, _ := io.ReadAtLeast(c, reply, 12)
		return reply[:n], c
	}
	name := "svc.test"
	req := append(append([]byte{5, 1, 0, 3, byte(len(name))}, name...), byte(h.port>>8), byte(h.port))
	reply, c := socks(req)
	if len(reply) != 12 || reply[3] != socksOK {
		t.Fatalf("socks reply % x", reply)
	}
	fmt.Fprintf(c, "over socks\n")
	if l, _ := bufio.NewReader(c).ReadString('\n'); l != "echo: over socks\n" {
		t.Errorf("socks tunnel: %q", l)
	}
	c.Close()
	evil := "evil.test"
	reply, c = socks(append(append([]byte{5, 1, 0, 3, byte(len(evil))}, evil...), 1, 187))
	c.Close()
	if len(reply) != 12 || reply[3] != socksNotAllowed {
		t.Errorf("socks to a host no rule allows: % x", reply)
	}
	reply, c = socks([]byte{5, 3, 0, 1, 0, 0, 0, 0, 0, 0})
	c.Close()
	if len(reply) != 12 || reply[3] != socksBadCommand {
		t.Errorf("socks UDP ASSOCIATE: % x", reply)
	}
}

// dnsQuery asks the stub over UDP.
func (h *harness) dnsQuery(name string, qtype uint16) (rcode int, addrs []netip.Addr) {
	h.t.Helper()
	h.net.mu.Lock()
	real := h.net.packets[DNSAddr]
	h.net.mu.Unlock()
	c, err := net.Dial("udp", real)
	if err != nil {
		h.t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write(query(42, name, qtype))
	buf := make([]byte, 512)
	n, err := c.Read(buf)
	if err != nil {
		h.t.Fatalf("dns %s: %v", name, err)
	}
	return parseAnswer(h.t, buf[:n])
}

// parseAnswer reads the rcode and the A and AAAA records of a response
// to one question.
func parseAnswer(t *testing.T, b []byte) (int, []netip.Addr) {
	t.Helper()
	rcode := int(binary.BigEndian.Uint16(b[2:]) & 0xf)
	an := int(binary.BigEndian.Uint16(b[6:]))
	off := dnsHeaderLen
	for b[off] != 0 {
		off += int(b[off]) + 1
	}
	off += 5
	var out []netip.Addr
	for i := 0; i < an; i++ {
		rdlen := int(binary.BigEndian.Uint16(b[off+10:]))
		a, _ := netip.AddrFromSlice(b[off+12 : off+12+rdlen])
		out = append(out, a)
		off += 12 + rdlen
	}
	return rcode, out
}

func TestDNSAndTransparent(t *testing.T) {
	h := start(t, nil)
	p := fmt.Sprint(h.port)
	rcode, addrs := h.dnsQuery("SVC.test", dnsTypeA)
	if rcode != rcodeOK || len(addrs) != 1 || !fakeNet.Contains(addrs[0]) {
		t.Fatalf("svc.test: rcode %d %v", rcode, addrs)
	}
	fake := addrs[0]
	if rcode, again := h.dnsQuery("svc.test", dnsTypeA); rcode != rcodeOK || again[0] != fake {
		t.Errorf("the same name gets another address: %v", again)
	}
	if rcode, six := h.dnsQuery("svc.test", dnsTypeAAAA); rcode != rcodeOK || len(six) != 0 {
		t.Errorf("AAAA: rcode %d %v, want no data", rcode, six)
	}
	// The name's address listens on its allowed port only, and carries
	// what comes there to the real host, whatever the bytes say.
	c := h.net.dial(t, netip.AddrPortFrom(fake, h.port).String())
	fmt.Fprintf(c, "CONNECT evil.test:443 HTTP/1.1\n")
	if l, _ := bufio.NewReader(c).ReadString('\n'); l != "echo: CONNECT evil.test:443 HTTP/1.1\n" {
		t.Errorf("transparent: %q", l)
	}
	c.Close()
	if h.net.listening(netip.AddrPortFrom(fake, 443).String()) {
		t.Error("the name's address listens on a port no rule allows")
	}
	// Through the proxy, the address the stub gave stands for the name.
	status, c, _ := h.connect(netip.AddrPortFrom(fake, h.port).String())
	c.Close()
	if status != "HTTP/1.1 200 Connection established" {
		t.Errorf("CONNECT to the name's address: %q", status)
	}
	for _, tc := range []struct {
		name  string
		rcode int
	}{{"evil.test", rcodeNXDomain}, {"priv.test", rcodeNXDomain}, {"nothere.wild.test", rcodeNXDomain}, {"a.wild.test", rcodeOK}, {"localhost", rcodeOK},
		{"1.0.1.127.in-addr.arpa", rcodeNXDomain}} {
		if rcode, _ := h.dnsQuery(tc.name, dnsTypeA); rcode != tc.rcode {
			t.Errorf("%s: rcode %d, want %d", tc.name, rcode, tc.rcode)
		}
	}
	carried, denied := h.srv.Stats()
	want := []Count{{Host: "svc.test", Port: int(h.port), Count: 2}}
	if fmt.Sprint(carried) != fmt.Sprint(want) {
		t.Errorf("carried %v, want %v", carried, want)
	}
	wantDenied := []Count{{Host: "evil.test", Count: 1, Reason: "no rule allows it"},
		{Host: "priv.test", Count: 1, Reason: "it resolves to 10.0.0.1, a private address (a rule naming the address, or private hosts allowed, lets it)"}}
	if fmt.Sprint(denied) != fmt.Sprint(wantDenied) {
		t.Errorf("denied %v, want %v", denied, wantDenied)
	}
	_ = p
}

func TestHookOncePerHostPort(t *testing.T) {
	var calls atomic.Int32
	var mu sync.Mutex
	asked := map[string]int{}
	h := start(t, func(c *Config) {
		c.Allow = func(host string, port int) bool {
			calls.Add(1)
			mu.Lock()
			asked[fmt.Sprintf("%s:%d", host, port)]++
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			return host == "hooked.test"
		}
		c.Hosts["hooked.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
		c.Policy.AllowPrivate = true // hooked.test leads to loopback on the hook's ports
	})
	p := fmt.Sprint(h.port)
	var wg sync.WaitGroup
	statuses := make([]string, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := "hooked.test:" + p
			if i%2 == 1 {
				target = "other.test:" + p
			}
			var c net.Conn
			statuses[i], c, _ = h.connect(target)
			c.Close()
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		want := "HTTP/1.1 200"
		if i%2 == 1 {
			want = "HTTP/1.1 403"
		}
		if !strings.HasPrefix(s, want) {
			t.Errorf("request %d: %q, want %s", i, s, want)
		}
	}
	count := func(k string) int {
		mu.Lock()
		defer mu.Unlock()
		return asked[k]
	}
	if calls.Load() != 2 || count("hooked.test:"+p) != 1 || count("other.test:"+p) != 1 {
		t.Errorf("hook calls %d", calls.Load())
	}
	// The stub asks the hook about the default ports of a name no rule
	// names.
	if rcode, _ := h.dnsQuery("hooked.test", dnsTypeA); rcode != rcodeOK {
		t.Errorf("hooked.test through DNS: rcode %d", rcode)
	}
	if count("hooked.test:80") != 1 || count("hooked.test:443") != 1 {
		t.Errorf("hook calls after DNS: %d on 80, %d on 443", count("hooked.test:80"), count("hooked.test:443"))
	}
}

func TestDialHook(t *testing.T) {
	var got []string
	var mu sync.Mutex
	h := start(t, nil)
	upstream := fmt.Sprintf("127.0.0.1:%d", h.port)
	h.srv.Close()
	h = start(t, func(c *Config) {
		c.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
			mu.Lock()
			got = append(got, network+" "+address)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", upstream)
		}
		c.Hosts = nil // the dialer resolves; nothing is looked up
		c.Resolve = func(context.Context, string) ([]netip.Addr, error) {
			t.Error("a server with a dialer resolved a name")
			return nil, fmt.Errorf("no")
		}
	})
	_ = h
	p := fmt.Sprint(h.port)
	status, c, br := h.connect("priv.test:" + p)
	if status != "HTTP/1.1 200 Connection established" {
		t.Fatalf("status %q", status)
	}
	fmt.Fprintf(c, "via dialer\n")
	br.ReadString('\n')
	c.Close()
	status, c, _ = h.connect("evil.test:" + p)
	c.Close()
	if !strings.HasPrefix(status, "HTTP/1.1 403") {
		t.Errorf("a dialer does not widen the rules: %q", status)
	}
	if rcode, _ := h.dnsQuery("priv.test", dnsTypeA); rcode != rcodeOK {
		t.Errorf("with a dialer, an allowed name gets an address without a lookup: rcode %d", rcode)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "tcp priv.test:"+p {
		t.Errorf("dialer called with %v", got)
	}
}

func TestHostPortsAndPublish(t *testing.T) {
	up, _ := echoServer(t)
	other, _ := echoServer(t)
	// The payload's server "inside".
	payload, _ := echoServer(t)
	n := newTestNetwork()
	n.servers[netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 8080)] = fmt.Sprintf("127.0.0.1:%d", payload)
	pub, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hostAddr := netip.MustParseAddrPort(pub.Addr().String())
	s, err := Start(Config{Inside: n, HostPorts: []uint16{up}, Publish: []Publish{{Host: pub, Port: 8080}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := &harness{t: t, net: n, srv: s}
	c := n.dial(t, fmt.Sprintf("127.0.0.1:%d", up))
	fmt.Fprintf(c, "db\n")
	if l, _ := bufio.NewReader(c).ReadString('\n'); l != "echo: db\n" {
		t.Errorf("host port: %q", l)
	}
	c.Close()
	if n.listening(fmt.Sprintf("127.0.0.1:%d", other)) {
		t.Error("a host port nobody asked for is reachable")
	}
	status, c, _ := h.connect(fmt.Sprintf("127.0.0.1:%d", other))
	c.Close()
	if !strings.HasPrefix(status, "HTTP/1.1 403") {
		t.Errorf("the proxy reaches the host's loopback: %q", status)
	}
	pc, err := net.Dial("tcp", hostAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(pc, "from the host\n")
	if l, _ := bufio.NewReader(pc).ReadString('\n'); l != "echo: from the host\n" {
		t.Errorf("published: %q", l)
	}
	pc.Close()
	s.Close()
	if c, err := net.Dial("tcp", hostAddr.String()); err == nil {
		c.Close()
		t.Error("the published port still listens after Close")
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	h := start(t, nil)
	p := fmt.Sprint(h.port)
	_, c, _ := h.connect("svc.test:" + p) // left open: Close must end it
	h.dnsQuery("svc.test", dnsTypeA)
	h.net.mu.Lock()
	proxy := h.net.streams[ProxyAddr]
	h.net.mu.Unlock()
	h.srv.Close()
	buf := make([]byte, 1)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(buf); err == nil {
		t.Error("a tunnel outlived Close")
	}
	c.Close()
	if c, err := net.Dial("tcp", proxy); err == nil {
		c.Close()
		t.Error("the proxy still listens after Close")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the echo servers' goroutines end on their own
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines left, %d before", n, before)
	}
}

// A payload naming ever new hosts cannot grow the server's tables past
// their bounds: the counts past the first maxKeys go under "*".
func TestCountsAreBounded(t *testing.T) {
	m := map[hostPort]int{}
	for i := 0; i < maxKeys+10; i++ {
		bump(m, hostPort{fmt.Sprintf("h%d.test", i), 443})
	}
	bump(m, hostPort{"h1.test", 443})
	if len(m) != maxKeys+1 || m[hostPort{host: "*"}] != 10 || m[hostPort{"h1.test", 443}] != 2 {
		t.Errorf("%d keys, %d under *", len(m), m[hostPort{host: "*"}])
	}
}

// TestNoticeOncePerHost: an allowed name refused for its address is
// noticed once, whatever the port and however it was asked (DNS or the
// proxy); a name no rule allows is not noticed; the count keeps the reason.
func TestNoticeOncePerHost(t *testing.T) {
	var mu sync.Mutex
	var notices []Refusal
	h := start(t, func(c *Config) {
		c.Notice = func(r Refusal) {
			mu.Lock()
			notices = append(notices, r)
			mu.Unlock()
		}
	})
	p := fmt.Sprint(h.port)
	if rcode, _ := h.dnsQuery("priv.test", dnsTypeA); rcode != rcodeNXDomain {
		t.Errorf("priv.test: rcode %d", rcode)
	}
	for _, target := range []string{"priv.test:" + p, "priv.test:" + p, "evil.test:443", "meta.test:80", "meta.test:443"} {
		status, c, _ := h.connect(target)
		c.Close()
		if !strings.HasPrefix(status, "HTTP/1.1 403") {
			t.Errorf("CONNECT %s: %q, want 403", target, status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []Refusal{
		{Host: "priv.test", Reason: "it resolves to 10.0.0.1, a private address (a rule naming the address, or private hosts allowed, lets it)",
			Addr: netip.MustParseAddr("10.0.0.1"), Class: ClassPrivate},
		{Host: "meta.test", Port: 80, Reason: "it resolves to 169.254.169.254, a link-local address (a rule naming the address, or private hosts allowed, lets it)",
			Addr: netip.MustParseAddr("169.254.169.254"), Class: ClassLinkLocal},
	}
	if fmt.Sprint(notices) != fmt.Sprint(want) {
		t.Errorf("notices %v, want %v", notices, want)
	}
	_, denied := h.srv.Stats()
	for _, d := range denied {
		if d.Reason == "" {
			t.Errorf("denied %v: no reason", d)
		}
	}
}

// TestRefuseAll: a server with no network refuses every host, through
// the proxy (HTTP and SOCKS) and the DNS stub, at once, saying why in
// the answer and to Notice, once per host; it connects to nothing.
func TestRefuseAll(t *testing.T) {
	var mu sync.Mutex
	var notices []Refusal
	const why = "the sandbox has no network"
	h := start(t, func(c *Config) {
		c.RefuseAll = why
		c.Notice = func(r Refusal) {
			mu.Lock()
			notices = append(notices, r)
			mu.Unlock()
		}
	})
	p := fmt.Sprint(h.port)
	if rcode, _ := h.dnsQuery("svc.test", dnsTypeA); rcode != rcodeNXDomain {
		t.Errorf("svc.test: rcode %d, want NXDOMAIN", rcode)
	}
	for _, target := range []string{"svc.test:" + p, "127.0.0.1:" + p, "EVIL.test:443", "evil.test:80", "[::1]:443"} {
		status, c, br := h.connect(target)
		body, _ := io.ReadAll(br)
		c.Close()
		if !strings.HasPrefix(status, "HTTP/1.1 403") || !strings.Contains(string(body), why) {
			t.Errorf("CONNECT %s: %q %q, want 403 saying %q", target, status, body, why)
		}
	}
	// SOCKS, with a name and with bytes that are none (to be refused
	// unnoticed: the text is the payload's, not for the user's terminal).
	for _, name := range []string{"socks.test", "bad\x1b]0;x.test"} {
		c := h.net.dial(t, ProxyAddr.String())
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(append(append([]byte{5, 1, 0, 5, 1, 0, 3, byte(len(name))}, name...), 1, 187))
		reply := make([]byte, 12)
		n, _ := io.ReadAtLeast(c, reply, 12)
		c.Close()
		if n != 12 || reply[3] != socksNotAllowed {
			t.Errorf("socks to %q: % x, want not allowed", name, reply[:n])
		}
	}
	if n := len(h.seen()); n != 0 {
		t.Errorf("the server was reached %d times", n)
	}
	mu.Lock()
	defer mu.Unlock()
	var hosts []string
	for _, r := range notices {
		hosts = append(hosts, r.Host)
		if r.Reason != why {
			t.Errorf("notice %v: reason %q", r, r.Reason)
		}
	}
	// Once per host, named as nsrun reads it; what is no host at all is
	// refused unnoticed (its text is the payload's).
	if fmt.Sprint(hosts) != "[svc.test 127.0.0.1 evil.test ::1 socks.test]" {
		t.Errorf("noticed %v", hosts)
	}
}

// A connection the payload made straight to an allowed name, which the
// host side cannot reach, is reset; nsrun's log says why, once for each
// host and port (the payload sees only the reset).
func TestTransparentUnreachedIsLogged(t *testing.T) {
	h := start(t, func(c *Config) {
		c.Dial = func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		}
	})
	_, addrs := h.dnsQuery("svc.test", dnsTypeA)
	if len(addrs) != 1 {
		t.Fatalf("svc.test: %v", addrs)
	}
	for i := 0; i < 2; i++ {
		// On loopback the reset can come before the dial has read its
		// result: then the dial itself says so.
		c, err := h.net.tryDial(t, netip.AddrPortFrom(addrs[0], h.port).String())
		if errors.Is(err, syscall.ECONNRESET) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("a connection the host side could not reach was not ended")
		}
		c.Close()
	}
	want := fmt.Sprintf("network: svc.test:%d not reached, the connection reset: dial tcp: connection refused", h.port)
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, l := range h.logs {
		if l == want {
			n++
		}
	}
	if n != 1 {
		t.Errorf("want %q once in %q", want, h.logs)
	}
}
