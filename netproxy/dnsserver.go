package netproxy

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"
)

// dnsPackets answers queries over UDP until the socket closes.
func (s *Server) dnsPackets(pc net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		msg := append([]byte(nil), buf[:n]...)
		select {
		case s.dnsSem <- struct{}{}:
		default:
			continue // too many at once: the client asks again
		}
		s.goServe(func() {
			defer func() { <-s.dnsSem }()
			if out := s.answer(msg); out != nil {
				_, _ = pc.WriteTo(out, from)
			}
		})
	}
}

// dnsStream answers queries over one TCP connection, each behind its
// two-byte length (RFC 1035 4.2.2).
func (s *Server) dnsStream(c net.Conn) {
	for {
		_ = c.SetDeadline(time.Now().Add(headTimeout))
		var n [2]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(c, msg); err != nil {
			return
		}
		out := s.answer(msg)
		if out == nil {
			return
		}
		framed := binary.BigEndian.AppendUint16(nil, uint16(len(out)))
		if _, err := c.Write(append(framed, out...)); err != nil {
			return
		}
	}
}

var (
	loopback4 = netip.MustParseAddr("127.0.0.1")
	loopback6 = netip.IPv6Loopback()
)

// answer is the stub's response to one query, nil for a message that
// deserves none. An allowed name gets its address in fakeNet, where the
// server listens on the name's allowed ports (IPv4 only: AAAA and other
// types get no data, so clients use the address given); a name no rule
// or hook allows, or that leads only to addresses it may not reach, does
// not exist.
func (s *Server) answer(msg []byte) []byte {
	q, rcode, err := parseQuery(msg)
	if err != nil {
		return nil
	}
	if rcode != rcodeOK {
		return dnsAnswer(q, rcode, nil)
	}
	if q.qclass != dnsClassIN {
		return dnsAnswer(q, rcodeNotImp, nil)
	}
	if q.name == "" {
		return dnsAnswer(q, rcodeNXDomain, nil)
	}
	if q.name == "localhost" || strings.HasSuffix(q.name, ".localhost") {
		return dnsAnswer(q, rcodeOK, []netip.Addr{loopback4, loopback6})
	}
	if strings.HasSuffix(q.name, ".in-addr.arpa") || strings.HasSuffix(q.name, ".ip6.arpa") {
		// Reverse lookups name no host to reach: answered, not counted,
		// never asked of the host's resolver.
		return dnsAnswer(q, rcodeNXDomain, nil)
	}
	// A client asks for A and AAAA together: a refusal counts once.
	a, rcode := s.nameAddr(q.name, q.qtype != dnsTypeAAAA)
	if rcode != rcodeOK {
		return dnsAnswer(q, rcode, nil)
	}
	return dnsAnswer(q, rcodeOK, []netip.Addr{a})
}

// nameAddr is the address the stub gives name, with its listeners in
// place, or the rcode that says why there is none.
func (s *Server) nameAddr(name string, record bool) (netip.Addr, int) {
	deny := func(reason string) {
		if record {
			s.deny(&denial{host: name, reason: reason})
		}
	}
	if s.cfg.RefuseAll != "" {
		if record {
			s.refusedAll(name, 0)
		}
		return netip.Addr{}, rcodeNXDomain
	}
	ports := s.cfg.Policy.NamePorts(name)
	if len(ports) == 0 {
		for _, p := range DefaultPorts {
			if s.allows(name, netip.Addr{}, p) {
				ports = append(ports, p)
			}
		}
	}
	if len(ports) == 0 {
		deny("no rule allows it")
		return netip.Addr{}, rcodeNXDomain
	}
	if s.cfg.Dial == nil {
		ctx, cancel := context.WithTimeout(s.ctx, lookTimeout)
		addrs, err := s.lookup(ctx, name)
		cancel()
		var dns *net.DNSError
		switch {
		case errors.As(err, &dns) && dns.IsNotFound:
			return netip.Addr{}, rcodeNXDomain
		case err != nil:
			return netip.Addr{}, rcodeServFail
		}
		var why string
		usable := false
		for _, p := range ports {
			var ok []netip.Addr
			ok, why = s.cfg.Policy.Usable(addrs, p)
			usable = usable || len(ok) > 0
		}
		if !usable {
			if record {
				// Every address was refused: the first is the one why names.
				s.deny(&denial{host: name, reason: why, addr: addrs[0].Unmap().WithZone(""), notice: true})
			}
			return netip.Addr{}, rcodeNXDomain
		}
	}
	s.fakeMu.Lock()
	defer s.fakeMu.Unlock()
	a, fresh, ok := s.fake.get(name)
	if !ok {
		deny("the sandbox has looked up too many names")
		return netip.Addr{}, rcodeServFail
	}
	if fresh {
		for _, p := range ports {
			ln, err := s.cfg.Inside.Listen(netip.AddrPortFrom(a, p))
			if err != nil {
				if s.cfg.Log != nil {
					s.cfg.Log("network: cannot listen for " + hostPortString(name, p) + ": " + err.Error())
				}
				continue
			}
			s.serve(ln, func(c net.Conn) { s.transparent(c, name, p) })
		}
	}
	return a, rcodeOK
}
