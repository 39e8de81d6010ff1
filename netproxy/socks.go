package netproxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
)

// SOCKS5 (RFC 1928) constants the proxy uses.
const (
	socksVersion     = 5
	socksNoAuth      = 0
	socksNoMethod    = 0xff
	socksConnect     = 1
	socksAddrIPv4    = 1
	socksAddrName    = 3
	socksAddrIPv6    = 4
	socksOK          = 0
	socksFailure     = 1
	socksNotAllowed  = 2
	socksUnreachable = 4
	socksRefused     = 5
	socksBadCommand  = 7
	socksBadAddrType = 8
)

// socksError is a request the proxy answers with a SOCKS reply code.
type socksError struct {
	code byte
	err  error
}

func (e *socksError) Error() string { return e.err.Error() }

// socksRequest reads a client's greeting and CONNECT request, answering
// the greeting (no authentication) itself. It returns the host (a name,
// or an address as text) and port asked for; a *socksError carries the
// reply code for a request the proxy cannot serve.
func socksRequest(r *bufio.Reader, w io.Writer) (host string, port uint16, err error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", 0, err
	}
	if hdr[0] != socksVersion {
		return "", 0, fmt.Errorf("socks version %d", hdr[0])
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return "", 0, err
	}
	method := byte(socksNoMethod)
	for _, m := range methods {
		if m == socksNoAuth {
			method = socksNoAuth
		}
	}
	if _, err := w.Write([]byte{socksVersion, method}); err != nil {
		return "", 0, err
	}
	if method == socksNoMethod {
		return "", 0, errors.New("socks client offers no method without authentication")
	}
	var req [4]byte
	if _, err := io.ReadFull(r, req[:]); err != nil {
		return "", 0, err
	}
	if req[0] != socksVersion {
		return "", 0, fmt.Errorf("socks request version %d", req[0])
	}
	switch req[3] {
	case socksAddrIPv4, socksAddrIPv6:
		b := make([]byte, 4)
		if req[3] == socksAddrIPv6 {
			b = make([]byte, 16)
		}
		if _, err := io.ReadFull(r, b); err != nil {
			return "", 0, err
		}
		a, _ := netip.AddrFromSlice(b)
		host = a.String()
	case socksAddrName:
		n, err := r.ReadByte()
		if err != nil {
			return "", 0, err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", 0, err
		}
		host = string(b)
	default:
		return "", 0, &socksError{socksBadAddrType, fmt.Errorf("socks address type %d", req[3])}
	}
	var p [2]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return "", 0, err
	}
	port = binary.BigEndian.Uint16(p[:])
	if req[1] != socksConnect {
		// BIND and UDP ASSOCIATE would open the sandbox to connections
		// and datagrams no rule decides.
		return "", 0, &socksError{socksBadCommand, fmt.Errorf("socks command %d: only CONNECT is served", req[1])}
	}
	if port == 0 {
		return host, 0, &socksError{socksNotAllowed, errors.New("socks request for port 0")}
	}
	return host, port, nil
}

// socksReply answers a request with code and an unspecified bound address.
func socksReply(w io.Writer, code byte) error {
	_, err := w.Write([]byte{socksVersion, code, 0, socksAddrIPv4, 0, 0, 0, 0, 0, 0})
	return err
}
