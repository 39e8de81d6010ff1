package netproxy

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
)

// DNS header flags, types and response codes the stub uses (RFC 1035).
const (
	dnsQR = 1 << 15
	dnsRD = 1 << 8
	dnsRA = 1 << 7

	dnsTypeA    = 1
	dnsTypeAAAA = 28
	dnsTypeANY  = 255
	dnsClassIN  = 1

	rcodeOK       = 0
	rcodeFormErr  = 1
	rcodeServFail = 2
	rcodeNXDomain = 3
	rcodeNotImp   = 4

	dnsHeaderLen = 12
	// answerTTL is short: the fake addresses last as long as the sandbox,
	// but a name's allowance is decided again after a minute.
	answerTTL = 60
)

var errDNSShort = errors.New("dns message shorter than its header")

// dnsQuery is the one question of a query, with what the answer needs to
// echo.
type dnsQuery struct {
	id       uint16
	rd       bool
	name     string // lowercased, without the trailing dot; "" if not a valid host name
	qtype    uint16
	qclass   uint16
	question []byte // the question section as sent, case included (0x20 randomization)
}

// parseQuery reads a query. A message that is not a standard query with
// exactly one question gives the rcode to answer with (FormErr, NotImp);
// one too short to carry an id gives errDNSShort and no answer at all.
func parseQuery(msg []byte) (dnsQuery, int, error) {
	var q dnsQuery
	if len(msg) < dnsHeaderLen {
		return q, 0, errDNSShort
	}
	q.id = binary.BigEndian.Uint16(msg[0:])
	flags := binary.BigEndian.Uint16(msg[2:])
	q.rd = flags&dnsRD != 0
	if flags&dnsQR != 0 {
		return q, 0, errors.New("dns message is a response")
	}
	if (flags>>11)&0xf != 0 {
		return q, rcodeNotImp, nil
	}
	qd, an, ns := binary.BigEndian.Uint16(msg[4:]), binary.BigEndian.Uint16(msg[6:]), binary.BigEndian.Uint16(msg[8:])
	if qd != 1 || an != 0 || ns != 0 {
		return q, rcodeFormErr, nil
	}
	off := dnsHeaderLen
	var labels []string
	valid := true
	for {
		if off >= len(msg) {
			return q, rcodeFormErr, nil
		}
		n := int(msg[off])
		off++
		if n == 0 {
			break
		}
		if n&0xc0 != 0 || off+n > len(msg) {
			// Compression has nothing to point at in a query's question.
			return q, rcodeFormErr, nil
		}
		l := string(msg[off : off+n])
		off += n
		if strings.ContainsAny(l, ". ") {
			valid = false
		}
		labels = append(labels, l)
	}
	if off+4 > len(msg) || off-dnsHeaderLen > 255 {
		return q, rcodeFormErr, nil
	}
	q.qtype = binary.BigEndian.Uint16(msg[off:])
	q.qclass = binary.BigEndian.Uint16(msg[off+2:])
	q.question = msg[dnsHeaderLen : off+4]
	if valid && len(labels) > 0 {
		if name, err := NormalizeName(strings.Join(labels, ".")); err == nil {
			q.name = name
		}
	}
	return q, rcodeOK, nil
}

// dnsAnswer builds the response to q: rcode, and for rcodeOK the records
// of addrs that fit the question's type (A for IPv4, AAAA for IPv6; none
// is "no data"). Additional records of the query (EDNS) are not echoed.
func dnsAnswer(q dnsQuery, rcode int, addrs []netip.Addr) []byte {
	var records [][]byte
	if rcode == rcodeOK {
		for _, a := range addrs {
			switch {
			case a.Is4() && (q.qtype == dnsTypeA || q.qtype == dnsTypeANY):
				b := a.As4()
				records = append(records, resourceRecord(dnsTypeA, b[:]))
			case a.Is6() && (q.qtype == dnsTypeAAAA || q.qtype == dnsTypeANY):
				b := a.As16()
				records = append(records, resourceRecord(dnsTypeAAAA, b[:]))
			}
		}
	}
	out := make([]byte, dnsHeaderLen, dnsHeaderLen+len(q.question)+16*len(records))
	binary.BigEndian.PutUint16(out[0:], q.id)
	flags := uint16(dnsQR|dnsRA) | uint16(rcode)
	if q.rd {
		flags |= dnsRD
	}
	binary.BigEndian.PutUint16(out[2:], flags)
	if q.question != nil {
		binary.BigEndian.PutUint16(out[4:], 1)
		out = append(out, q.question...)
	}
	binary.BigEndian.PutUint16(out[6:], uint16(len(records)))
	for _, r := range records {
		out = append(out, r...)
	}
	return out
}

// resourceRecord is one answer for the question's name (a pointer to it
// at offset 12), class IN.
func resourceRecord(typ uint16, data []byte) []byte {
	r := make([]byte, 12, 12+len(data))
	binary.BigEndian.PutUint16(r[0:], 0xc000|dnsHeaderLen)
	binary.BigEndian.PutUint16(r[2:], typ)
	binary.BigEndian.PutUint16(r[4:], dnsClassIN)
	binary.BigEndian.PutUint32(r[6:], answerTTL)
	binary.BigEndian.PutUint16(r[10:], uint16(len(data)))
	return append(r, data...)
}
