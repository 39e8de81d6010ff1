package netproxy

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"
)

// query builds a DNS query for name and type, as a stub resolver sends it.
func query(id uint16, name string, qtype uint16) []byte {
	b := binary.BigEndian.AppendUint16(nil, id)
	b = append(b, 0x01, 0x00) // RD
	b = append(b, 0, 1, 0, 0, 0, 0, 0, 0)
	for _, l := range strings.Split(name, ".") {
		b = append(b, byte(len(l)))
		b = append(b, l...)
	}
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, qtype)
	return binary.BigEndian.AppendUint16(b, dnsClassIN)
}

func TestParseQuery(t *testing.T) {
	q, rcode, err := parseQuery(query(0x1234, "GitHub.COM", dnsTypeA))
	if err != nil || rcode != rcodeOK || q.id != 0x1234 || !q.rd || q.name != "github.com" || q.qtype != dnsTypeA || q.qclass != dnsClassIN {
		t.Fatalf("got %+v %d %v", q, rcode, err)
	}
	if _, _, err := parseQuery([]byte{1, 2, 3}); err != errDNSShort {
		t.Errorf("short message: %v", err)
	}
	resp := query(1, "a.b", dnsTypeA)
	resp[2] |= 0x80
	if _, _, err := parseQuery(resp); err == nil {
		t.Error("a response is not a query")
	}
	for name, mutate := range map[string]func([]byte) []byte{
		"two questions": func(b []byte) []byte { b[5] = 2; return b },
		"no question":   func(b []byte) []byte { b[5] = 0; return b },
		"an answer":     func(b []byte) []byte { b[7] = 1; return b },
		"truncated":     func(b []byte) []byte { return b[:len(b)-3] },
		"a pointer":     func(b []byte) []byte { b[12] = 0xc0; return b },
		"label past end": func(b []byte) []byte {
			b[12] = 60
			return b
		},
	} {
		if _, rcode, err := parseQuery(mutate(query(7, "example.com", dnsTypeA))); err != nil || rcode != rcodeFormErr {
			t.Errorf("%s: rcode %d, %v", name, rcode, err)
		}
	}
	notify := query(7, "example.com", dnsTypeA)
	notify[2] |= 4 << 3 // opcode NOTIFY
	if _, rcode, _ := parseQuery(notify); rcode != rcodeNotImp {
		t.Errorf("opcode 4: rcode %d", rcode)
	}
	// A label with a dot in it, or a name that is no host name, parses
	// with an empty name (answered as non-existent).
	odd := query(7, "x", dnsTypeA)
	odd[13] = '.'
	if q, rcode, _ := parseQuery(odd); rcode != rcodeOK || q.name != "" {
		t.Errorf("odd label: %+v %d", q, rcode)
	}
}

func TestDNSAnswer(t *testing.T) {
	msg := query(0xbeef, "GitHub.com", dnsTypeA)
	q, _, _ := parseQuery(msg)
	a := netip.MustParseAddr("127.1.0.1")
	out := dnsAnswer(q, rcodeOK, []netip.Addr{a, netip.MustParseAddr("::1")})
	if binary.BigEndian.Uint16(out) != 0xbeef {
		t.Fatal("id")
	}
	flags := binary.BigEndian.Uint16(out[2:])
	if flags&dnsQR == 0 || flags&dnsRD == 0 || flags&0xf != rcodeOK {
		t.Errorf("flags %#x", flags)
	}
	if qd, an := binary.BigEndian.Uint16(out[4:]), binary.BigEndian.Uint16(out[6:]); qd != 1 || an != 1 {
		t.Fatalf("counts %d %d", qd, an)
	}
	// The question is echoed as asked (its case too), then one A record.
	qlen := len(msg) - dnsHeaderLen
	if !bytes.Equal(out[dnsHeaderLen:dnsHeaderLen+qlen], msg[dnsHeaderLen:]) {
		t.Error("question not echoed")
	}
	rr := out[dnsHeaderLen+qlen:]
	want := []byte{0xc0, 12, 0, 1, 0, 1, 0, 0, 0, answerTTL, 0, 4, 127, 1, 0, 1}
	if !bytes.Equal(rr, want) {
		t.Errorf("record % x, want % x", rr, want)
	}
	q6, _, _ := parseQuery(query(1, "github.com", dnsTypeAAAA))
	if out := dnsAnswer(q6, rcodeOK, []netip.Addr{a}); binary.BigEndian.Uint16(out[6:]) != 0 || binary.BigEndian.Uint16(out[2:])&0xf != rcodeOK {
		t.Error("AAAA for an IPv4-only name: want no data, no error")
	}
	nx := dnsAnswer(q, rcodeNXDomain, []netip.Addr{a})
	if binary.BigEndian.Uint16(nx[2:])&0xf != rcodeNXDomain || binary.BigEndian.Uint16(nx[6:]) != 0 {
		t.Error("NXDOMAIN carries no answer")
	}
}

func FuzzParseQuery(f *testing.F) {
	f.Add(query(1, "github.com", dnsTypeA))
	f.Add([]byte{0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1})
	f.Fuzz(func(t *testing.T, msg []byte) {
		q, rcode, err := parseQuery(msg)
		if err != nil {
			return
		}
		out := dnsAnswer(q, rcode, []netip.Addr{netip.MustParseAddr("127.1.0.1")})
		if len(out) < dnsHeaderLen || binary.BigEndian.Uint16(out) != q.id {
			t.Fatalf("answer % x to % x", out, msg)
		}
		if q.name != "" {
			if _, err := NormalizeName(q.name); err != nil {
				t.Fatalf("name %q is no host name", q.name)
			}
		}
	})
}
