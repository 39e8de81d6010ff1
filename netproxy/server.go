package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Network is a network namespace the server reaches from outside, with
// sockets made inside it.
type Network interface {
	Listen(addr netip.AddrPort) (net.Listener, error)
	ListenPacket(addr netip.AddrPort) (net.PacketConn, error)
	Dial(ctx context.Context, addr netip.AddrPort) (net.Conn, error)
}

// The endpoints the server has inside a sandbox's network namespace.
var (
	// ProxyAddr serves HTTP (CONNECT and absolute-URI requests) and
	// SOCKS5 on one port, told apart by the first byte.
	ProxyAddr = netip.MustParseAddrPort("127.0.0.1:3128")
	// DNSAddr answers queries over UDP and TCP.
	DNSAddr = netip.MustParseAddrPort("127.0.0.1:53")
)

// Limits that keep a payload from exhausting the descriptors or memory of
// the process serving it.
const (
	maxConns    = 1024 // connections carried at once
	maxNames    = 1024 // names given an address
	maxQueries  = 64   // DNS queries answered at once
	maxKeys     = 4096 // hosts and ports remembered (counts, hook answers, lookups)
	headTimeout = 30 * time.Second
	dialTimeout = 30 * time.Second
	lookTimeout = 10 * time.Second
	cacheTTL    = 10 * time.Second
)

// Publish makes a server inside reachable from the host.
type Publish struct {
	Host net.Listener // the host's side
	Port uint16       // the port on 127.0.0.1 inside
}

// Config is a sandbox's network: what it may reach, and where the server
// listens for it.
type Config struct {
	Policy Policy
	// Hosts answer for names before Resolve (or the host's resolver).
	Hosts map[string][]netip.Addr
	// Allow decides a host (a name, or an address as text) and port no
	// rule allows; it is called once per host and port (of the last 4096
	// asked about: a payload asking about ever new names cannot grow the
	// server's memory without bound).
	Allow func(host string, port int) bool
	// Resolve replaces the host's resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial, if set, makes every outgoing connection, to the allowed name
	// (or address) and port: the server then does not resolve names, so
	// the address checks of Policy.Usable are the dialer's to make.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Inside is the sandbox's network namespace: the proxy, the DNS stub,
	// the names' addresses and HostPorts listen there. Without it the
	// proxy alone serves, on Proxy.
	Inside Network
	Proxy  net.Listener
	// HostPorts are ports of the host's 127.0.0.1 reachable at the same
	// port of the sandbox's 127.0.0.1.
	HostPorts []uint16
	Publish   []Publish
	// Log receives one line for the first refusal of each host and port.
	Log func(line string)
	// Notice receives, once per host, each refusal its user may not
	// expect (see Refusal).
	Notice func(Refusal)
	// RefuseAll, when set, refuses every host and name with it as the
	// reason, whatever Policy and Allow say: the server of a sandbox with
	// no network, there so that programs fail at once and can tell why,
	// rather than wait on a proxy or resolver that is not there. It
	// dials nothing and resolves nothing.
	RefuseAll string
}

// Refusal is a refusal the payload's user may not expect, for
// Config.Notice: a name a rule allows whose addresses the policy refuses
// (a private address, say), or any host under Config.RefuseAll.
type Refusal struct {
	Host   string
	Port   uint16 // 0: a name looked up through the DNS stub
	Reason string
	// Addr is the refused address of an allowed name, and Class its
	// class; Addr is invalid for other refusals.
	Addr  netip.Addr
	Class string
}

// Count is a number of connections to one host and port. Port 0 is a
// name looked up through the DNS stub; host "*" counts the hosts and
// ports past the first 4096.
type Count struct {
	Host  string `json:"host"`
	Port  int    `json:"port"`
	Count int    `json:"count"`
	// Reason is why the first refusal was made (refusals only).
	Reason string `json:"reason,omitempty"`
}

type hostPort struct {
	host string
	port uint16
}

type cached struct {
	addrs   []netip.Addr
	expires time.Time
}

// Server carries a sandbox's connections. Start it with Start, end it with
// Close.
type Server struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	slots  chan struct{}
	dnsSem chan struct{}

	mu        sync.Mutex
	closed    bool
	closers   map[io.Closer]struct{}
	carried   map[hostPort]int
	denied    map[hostPort]int
	reasons   map[hostPort]string // the first refusal's, by the key it counts under
	noticed   map[string]bool     // the hosts given to Config.Notice
	failed    map[hostPort]bool   // the hosts and ports a failure was logged for
	hook      map[hostPort]*hookResult
	cache     map[string]cached
	fake      *fakeAddrs
	fakeMu    sync.Mutex // held while a name's listeners are made
	proxyAddr netip.AddrPort
}

type hookResult struct {
	once sync.Once
	ok   bool
}

// Start listens where cfg says and serves until Close. Every listener is
// in place when it returns, so connections made afterwards are queued,
// never refused.
func Start(cfg Config) (*Server, error) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, ctx: ctx, cancel: cancel,
		slots: make(chan struct{}, maxConns), dnsSem: make(chan struct{}, maxQueries),
		closers: map[io.Closer]struct{}{}, carried: map[hostPort]int{}, denied: map[hostPort]int{}, failed: map[hostPort]bool{},
		reasons: map[hostPort]string{}, noticed: map[string]bool{},
		hook: map[hostPort]*hookResult{}, cache: map[string]cached{}, fake: newFakeAddrs(maxNames)}
	if err := s.listen(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) listen() error {
	proxy := s.cfg.Proxy
	if s.cfg.Inside != nil {
		ln, err := s.cfg.Inside.Listen(ProxyAddr)
		if err != nil {
			return fmt.Errorf("proxy on %s inside: %w", ProxyAddr, err)
		}
		proxy = ln
		udp, err := s.cfg.Inside.ListenPacket(DNSAddr)
		if err != nil {
			return fmt.Errorf("DNS on udp %s inside: %w", DNSAddr, err)
		}
		s.own(udp)
		tcp, err := s.cfg.Inside.Listen(DNSAddr)
		if err != nil {
			return fmt.Errorf("DNS on tcp %s inside: %w", DNSAddr, err)
		}
		s.serve(tcp, s.dnsStream)
		s.goServe(func() { s.dnsPackets(udp) })
		taken := map[netip.AddrPort]bool{ProxyAddr: true, DNSAddr: true}
		for _, port := range s.cfg.HostPorts {
			at := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port)
			ln, err := s.cfg.Inside.Listen(at)
			if err != nil {
				return fmt.Errorf("host port %d on %s inside: %w", port, at, err)
			}
			taken[at] = true
			s.serve(ln, func(c net.Conn) { s.hostPort(c, port) })
		}
		s.captureAddrs(taken)
	}
	if proxy == nil {
		return errors.New("netproxy: neither Inside nor Proxy is set")
	}
	if ap, err := netip.ParseAddrPort(proxy.Addr().String()); err == nil {
		s.proxyAddr = ap
	}
	s.serve(proxy, s.proxy)
	for _, p := range s.cfg.Publish {
		s.serve(p.Host, func(c net.Conn) { s.published(c, p.Port) })
	}
	return nil
}

// captureAddrs listens inside on the ports of each captured address (see
// Policy.Captured) and carries what comes there to that address. An
// address the sandbox lacks after all (no IPv6 there) is logged and left
// to the proxy.
func (s *Server) captureAddrs(taken map[netip.AddrPort]bool) {
	for _, a := range s.cfg.Policy.Captured() {
		var ports []uint16
		for _, r := range s.cfg.Policy.Rules {
			if r.IsAddr() && r.Prefix.IsSingleIP() && r.Prefix.Addr() == a {
				ports = append(ports, r.Ports...)
			}
		}
		for _, port := range ports {
			at := netip.AddrPortFrom(a, port)
			if taken[at] {
				continue
			}
			taken[at] = true
			ln, err := s.cfg.Inside.Listen(at)
			if err != nil {
				if s.cfg.Log != nil {
					s.cfg.Log("network: cannot listen for " + at.String() + " inside (the proxy still reaches it): " + err.Error())
				}
				continue
			}
			s.serve(ln, func(c net.Conn) { s.transparent(c, a.String(), port) })
		}
	}
}

// ProxyAddr is where the proxy listens (on the host's loopback without
// Config.Inside).
func (s *Server) ProxyAddr() netip.AddrPort { return s.proxyAddr }

// Close stops every listener, ends every connection and waits for the
// server's goroutines.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	closers := make([]io.Closer, 0, len(s.closers))
	for c := range s.closers {
		closers = append(closers, c)
	}
	s.mu.Unlock()
	s.cancel()
	for _, c := range closers {
		c.Close()
	}
	if s.cfg.Proxy != nil {
		s.cfg.Proxy.Close()
	}
	for _, p := range s.cfg.Publish {
		p.Host.Close()
	}
	s.wg.Wait()
}

// Stats are the connections carried and the refusals, by host and port.
func (s *Server) Stats() (carried, denied []Count) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return counts(s.carried, nil), counts(s.denied, s.reasons)
}

func counts(m map[hostPort]int, reasons map[hostPort]string) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Host: k.host, Port: int(k.port), Count: n, Reason: reasons[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Port < out[j].Port
	})
	return out
}

// own registers c to be closed by Close; false if the server is already
// closing (c is then closed at once).
func (s *Server) own(c io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return false
	}
	s.closers[c] = struct{}{}
	return true
}

func (s *Server) disown(c io.Closer) {
	s.mu.Lock()
	delete(s.closers, c)
	s.mu.Unlock()
	c.Close()
}

func (s *Server) goServe(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// serve accepts on ln until Close, handling each connection in a
// goroutine of its own; over maxConns at once, a connection is reset.
func (s *Server) serve(ln net.Listener, handle func(net.Conn)) {
	if !s.own(ln) {
		return
	}
	s.goServe(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				var ne net.Error
				if s.ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				if s.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
					// Out of descriptors, most likely: wait for some to free.
					time.Sleep(10 * time.Millisecond)
					continue
				}
				return
			}
			select {
			case s.slots <- struct{}{}:
			default:
				reset(c)
				continue
			}
			if !s.own(c) {
				<-s.slots
				continue
			}
			s.goServe(func() {
				defer func() { <-s.slots }()
				defer s.disown(c)
				handle(c)
			})
		}
	})
}

// reset closes c with a RST: the peer learns at once that nothing is
// there for it.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

// denial is a connection or lookup the policy refuses.
type denial struct {
	host   string
	port   uint16
	reason string
	// addr is the refused address of an allowed name; notice says the
	// refusal goes to Config.Notice.
	addr   netip.Addr
	notice bool
}

func (d *denial) Error() string {
	return fmt.Sprintf("%s: %s", hostPortString(d.host, d.port), d.reason)
}

func hostPortString(host string, port uint16) string {
	if port == 0 {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// bump counts one for k in m; past maxKeys hosts and ports, new ones
// count under "*". It reports whether k was new, and the key counted.
// The caller holds s.mu.
func bump(m map[hostPort]int, k hostPort) (bool, hostPort) {
	if _, ok := m[k]; !ok && len(m) >= maxKeys {
		k = hostPort{host: "*"}
	}
	m[k]++
	return m[k] == 1, k
}

// deny records d, logging the first of each host and port, and noticing
// the first of each host that is to be noticed.
func (s *Server) deny(d *denial) *denial {
	s.mu.Lock()
	first, k := bump(s.denied, hostPort{d.host, d.port})
	if first {
		s.reasons[k] = d.reason
	}
	notice := d.notice && s.cfg.Notice != nil && !s.noticed[d.host] && len(s.noticed) < maxKeys
	if notice {
		s.noticed[d.host] = true
	}
	s.mu.Unlock()
	if first && s.cfg.Log != nil {
		s.cfg.Log("network: denied " + d.Error())
	}
	if notice {
		r := Refusal{Host: d.host, Port: d.port, Reason: d.reason, Addr: d.addr}
		if d.addr.IsValid() {
			r.Class = Class(d.addr)
		}
		s.cfg.Notice(r)
	}
	return d
}

// refusedAll is the refusal of host and port under Config.RefuseAll. A
// host that is no name or address is refused all the same, but not
// noticed: its text is the payload's, not fit for the user's terminal.
func (s *Server) refusedAll(host string, port uint16) *denial {
	addr, name, err := hostAddr(host)
	if err != nil {
		return s.deny(&denial{host: host, port: port, reason: s.cfg.RefuseAll})
	}
	if name == "" {
		name = addr.String()
	}
	return s.deny(&denial{host: name, port: port, reason: s.cfg.RefuseAll, notice: true})
}

func (s *Server) carry(host string, port uint16) {
	s.mu.Lock()
	bump(s.carried, hostPort{host, port})
	s.mu.Unlock()
}

// allows reports whether a rule or the hook allows host on port; addr is
// host's address for an IP literal.
func (s *Server) allows(name string, addr netip.Addr, port uint16) bool {
	if name != "" && s.cfg.Policy.AllowsName(name, port) || addr.IsValid() && s.cfg.Policy.AllowsAddr(addr, port) {
		return true
	}
	if s.cfg.Allow == nil {
		return false
	}
	host := name
	if host == "" {
		host = addr.String()
	}
	k := hostPort{host, port}
	s.mu.Lock()
	h := s.hook[k]
	if h == nil {
		if len(s.hook) >= maxKeys {
			clear(s.hook)
		}
		h = &hookResult{}
		s.hook[k] = h
	}
	s.mu.Unlock()
	h.once.Do(func() { h.ok = s.cfg.Allow(host, int(port)) })
	return h.ok
}

// connect opens a connection for the payload to host and port, as the
// policy allows: a *denial when it does not, another error when the
// connection fails. An address the DNS stub gave out stands for its name.
func (s *Server) connect(ctx context.Context, host string, port uint16) (net.Conn, string, error) {
	if s.cfg.RefuseAll != "" {
		return nil, host, s.refusedAll(host, port)
	}
	addr, name, err := hostAddr(host)
	if err != nil {
		return nil, host, s.deny(&denial{host: host, port: port, reason: err.Error()})
	}
	if addr.IsValid() && fakeNet.Contains(addr) {
		s.fakeMu.Lock()
		if n := s.fake.name(addr); n != "" {
			addr, name = netip.Addr{}, n
		}
		s.fakeMu.Unlock()
	}
	shown := name
	if shown == "" {
		shown = addr.String()
	}
	if !s.allows(name, addr, port) {
		return nil, shown, s.deny(&denial{host: shown, port: port, reason: "no rule allows it"})
	}
	var c net.Conn
	switch {
	case s.cfg.Dial != nil:
		c, err = s.cfg.Dial(ctx, "tcp", hostPortString(shown, port))
	case name == "":
		c, err = dialAddr(ctx, netip.AddrPortFrom(addr, port))
	default:
		var addrs []netip.Addr
		if addrs, err = s.lookup(ctx, name); err != nil {
			return nil, shown, err
		}
		usable, why := s.cfg.Policy.Usable(addrs, port)
		if len(usable) == 0 {
			// Every address was refused: the first is the one why names.
			return nil, shown, s.deny(&denial{host: name, port: port, reason: why, addr: addrs[0].Unmap().WithZone(""), notice: true})
		}
		// The addresses checked are the ones dialled: no second lookup
		// can rebind the name to another.
		for _, a := range usable {
			if c, err = dialAddr(ctx, netip.AddrPortFrom(a, port)); err == nil {
				break
			}
		}
	}
	if err != nil {
		return nil, shown, err
	}
	s.carry(shown, port)
	return c, shown, nil
}

func dialAddr(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	return d.DialContext(ctx, "tcp", ap.String())
}

// lookup resolves name on the host's side: Config.Hosts, then
// Config.Resolve or the host's resolver. Answers are kept briefly, so a
// DNS query and the connection after it cost one lookup.
func (s *Server) lookup(ctx context.Context, name string) ([]netip.Addr, error) {
	if addrs, ok := s.cfg.Hosts[name]; ok {
		return addrs, nil
	}
	now := time.Now()
	s.mu.Lock()
	c, ok := s.cache[name]
	s.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.addrs, nil
	}
	ctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	var addrs []netip.Addr
	var err error
	if s.cfg.Resolve != nil {
		addrs, err = s.cfg.Resolve(ctx, name)
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", name)
	}
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: name, IsNotFound: true}
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.cache) >= maxKeys {
		for n, c := range s.cache {
			if now.After(c.expires) {
				delete(s.cache, n)
			}
		}
		if len(s.cache) >= maxKeys {
			clear(s.cache)
		}
	}
	s.cache[name] = cached{addrs: addrs, expires: now.Add(cacheTTL)}
	s.mu.Unlock()
	return addrs, nil
}

// proxy serves one client of the proxy port: SOCKS5 if it starts with
// byte 5, HTTP otherwise.
func (s *Server) proxy(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(headTimeout))
	br := bufio.NewReaderSize(c, 4096)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == socksVersion {
		s.socks(c, br)
		return
	}
	s.http(c, br)
}

func (s *Server) socks(c net.Conn, br *bufio.Reader) {
	host, port, err := socksRequest(br, c)
	var se *socksError
	if errors.As(err, &se) {
		if se.code == socksNotAllowed {
			if s.cfg.RefuseAll != "" {
				s.refusedAll(host, port)
			} else {
				s.deny(&denial{host: host, port: port, reason: se.Error()})
			}
		}
		_ = socksReply(c, se.code)
		return
	}
	if err != nil {
		return
	}
	up, _, err := s.connect(s.ctx, host, port)
	if err != nil {
		_ = socksReply(c, socksCode(err))
		return
	}
	if socksReply(c, socksOK) != nil {
		up.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	splice(c, br, up, false)
}

// socksCode is the reply to a failed CONNECT.
func socksCode(err error) byte {
	var d *denial
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &d):
		return socksNotAllowed
	case errors.As(err, &dns):
		return socksUnreachable
	case errors.As(err, &op) && op.Op == "dial" && !op.Timeout():
		return socksRefused
	}
	return socksFailure
}

func (s *Server) http(c net.Conn, br *bufio.Reader) {
	head, err := readHead(br)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			httpError(c, 400, "Bad Request", err.Error())
		}
		return
	}
	t, err := head.requestTarget()
	if err != nil {
		if t.host != "" {
			if s.cfg.RefuseAll != "" {
				d := s.refusedAll(t.host, t.port)
				httpError(c, 403, "Forbidden", "nsrun: "+d.Error())
				return
			}
			s.deny(&denial{host: t.host, port: t.port, reason: err.Error()})
			httpError(c, 403, "Forbidden", err.Error())
			return
		}
		httpError(c, 400, "Bad Request", err.Error())
		return
	}
	up, _, err := s.connect(s.ctx, t.host, t.port)
	if err != nil {
		var d *denial
		var dns *net.DNSError
		switch {
		case errors.As(err, &d):
			httpError(c, 403, "Forbidden", "nsrun: "+d.Error())
		case errors.As(err, &dns):
			httpError(c, 502, "Bad Gateway", "nsrun: "+err.Error())
		case isTimeout(err):
			httpError(c, 504, "Gateway Timeout", "nsrun: "+err.Error())
		default:
			httpError(c, 502, "Bad Gateway", "nsrun: "+err.Error())
		}
		return
	}
	if head.method == "CONNECT" {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			up.Close()
			return
		}
		_ = c.SetDeadline(time.Time{})
		splice(c, br, up, false)
		return
	}
	if _, err := up.Write(head.forward(t)); err != nil {
		up.Close()
		httpError(c, 502, "Bad Gateway", "nsrun: "+err.Error())
		return
	}
	_ = c.SetDeadline(time.Time{})
	splice(c, br, up, len(head.get("Upgrade")) == 0)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func httpError(c net.Conn, code int, status, msg string) {
	_, _ = fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		code, status, len(msg)+1, msg)
}

// transparent carries a connection the payload made straight to a name's
// address: the listener it came to says the name and port, whatever the
// bytes say.
func (s *Server) transparent(c net.Conn, name string, port uint16) {
	up, shown, err := s.connect(s.ctx, name, port)
	if err != nil {
		s.unreached(shown, port, err)
		reset(c)
		return
	}
	splice(c, nil, up, false)
}

// unreached logs, once for each host and port, why an allowed connection
// the payload made straight to it was reset: the payload sees only the
// reset. Refusals are logged as such (deny).
func (s *Server) unreached(host string, port uint16, err error) {
	var d *denial
	if errors.As(err, &d) || s.ctx.Err() != nil || s.cfg.Log == nil {
		return
	}
	k := hostPort{host, port}
	s.mu.Lock()
	first := !s.failed[k] && len(s.failed) < maxKeys
	s.failed[k] = true
	s.mu.Unlock()
	if first {
		s.cfg.Log("network: " + hostPortString(host, port) + " not reached, the connection reset: " + err.Error())
	}
}

// hostPort carries a connection to the host's 127.0.0.1:port.
func (s *Server) hostPort(c net.Conn, port uint16) {
	up, err := dialAddr(s.ctx, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port))
	if err != nil {
		s.unreached("127.0.0.1", port, err)
		reset(c)
		return
	}
	s.carry("127.0.0.1", port)
	splice(c, nil, up, false)
}

// published carries a connection from the host to port inside.
func (s *Server) published(c net.Conn, port uint16) {
	ctx, cancel := context.WithTimeout(s.ctx, dialTimeout)
	up, err := s.cfg.Inside.Dial(ctx, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port))
	cancel()
	if err != nil {
		reset(c)
		return
	}
	splice(c, nil, up, false)
}

// splice copies both ways between the client c (whose first bytes may be
// buffered in br) and up until both directions end, passing each end of
// stream on as a half close. With closeAfterReply the connection ends
// when up's side does (a plain HTTP request, sent with Connection: close).
func splice(c net.Conn, br *bufio.Reader, up net.Conn, closeAfterReply bool) {
	defer up.Close()
	defer c.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if br != nil && br.Buffered() > 0 {
			b, _ := br.Peek(br.Buffered())
			if _, err := up.Write(b); err != nil {
				return
			}
		}
		_, _ = io.Copy(up, c)
		closeWrite(up)
	}()
	_, _ = io.Copy(c, up)
	if closeAfterReply {
		c.Close()
		up.Close()
	} else {
		closeWrite(c)
	}
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
