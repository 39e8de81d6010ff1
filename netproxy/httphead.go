package netproxy

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// maxHead bounds a request's line and headers.
const maxHead = 64 << 10

// requestHead is an HTTP/1 request line and its headers, as a proxy
// receives them.
type requestHead struct {
	method, target, proto string
	headers               []header
}

type header struct{ name, value string }

var errHeadTooLarge = errors.New("request head over 64 KiB")

// readHead reads a request head up to its empty line. Bare LF line ends
// are taken, folded header lines (obsolete, and a smuggling device) are
// not.
func readHead(r *bufio.Reader) (*requestHead, error) {
	total := 0
	line := func() (string, error) {
		var b []byte
		for {
			part, more, err := r.ReadLine()
			if err != nil {
				return "", err
			}
			total += len(part) + 2
			if total > maxHead {
				return "", errHeadTooLarge
			}
			b = append(b, part...)
			if !more {
				return string(b), nil
			}
		}
	}
	first, err := line()
	if err != nil {
		return nil, err
	}
	parts := strings.Split(first, " ")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("malformed request line %q", first)
	}
	h := &requestHead{method: parts[0], target: parts[1], proto: parts[2]}
	if h.proto != "HTTP/1.1" && h.proto != "HTTP/1.0" {
		return nil, fmt.Errorf("unsupported protocol %q", h.proto)
	}
	for {
		l, err := line()
		if err != nil {
			return nil, err
		}
		if l == "" {
			return h, nil
		}
		if l[0] == ' ' || l[0] == '\t' {
			return nil, errors.New("folded header line")
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("malformed header line %q", l)
		}
		h.headers = append(h.headers, header{name: name, value: strings.TrimSpace(value)})
	}
}

// get returns the values of the header name.
func (h *requestHead) get(name string) []string {
	var out []string
	for _, hd := range h.headers {
		if strings.EqualFold(hd.name, name) {
			out = append(out, hd.value)
		}
	}
	return out
}

// splitHostPort reads HOST:PORT (an IPv6 host in brackets), with def the
// port when there is none (0: a port is required).
func splitHostPort(s string, def uint16) (string, uint16, error) {
	if strings.ContainsAny(s, "@/\\?#%") || s == "" {
		return "", 0, fmt.Errorf("bad authority %q", s)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if def == 0 || strings.Count(s, ":") == 1 && !strings.HasSuffix(s, "]") {
			return "", 0, fmt.Errorf("bad authority %q: want HOST:PORT", s)
		}
		host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		return host, def, nil
	}
	p, err := ParsePort(port)
	if err != nil {
		return "", 0, err
	}
	if host == "" {
		return "", 0, fmt.Errorf("bad authority %q: no host", s)
	}
	return host, p, nil
}

// target is where a request asks the proxy to connect, and for a plain
// (not CONNECT) request the origin-form path to send there.
type target struct {
	host string
	port uint16
	path string
}

// requestTarget reads where h goes: CONNECT's HOST:PORT, or an absolute
// http:// URI. A Host header must name the same host: a proxy that
// believed it instead would let a request name one host and reach another.
func (h *requestHead) requestTarget() (target, error) {
	var t target
	var err error
	if h.method == "CONNECT" {
		if t.host, t.port, err = splitHostPort(h.target, 0); err != nil {
			return t, err
		}
	} else {
		rest, ok := strings.CutPrefix(h.target, "http://")
		if !ok {
			if strings.HasPrefix(strings.ToLower(h.target), "http://") {
				rest, ok = h.target[len("http://"):], true
			}
		}
		if !ok {
			return t, fmt.Errorf("%s %s: a proxy request needs an absolute http:// URI (https goes through CONNECT)", h.method, h.target)
		}
		authority, path, _ := strings.Cut(rest, "/")
		if before, query, ok := strings.Cut(authority, "?"); ok {
			authority, path = before, "/?"+query
		} else {
			path = "/" + path
		}
		if t.host, t.port, err = splitHostPort(authority, 80); err != nil {
			return t, err
		}
		t.path = path
	}
	hosts := h.get("Host")
	if len(hosts) > 1 {
		return t, errors.New("more than one Host header")
	}
	if len(hosts) == 1 {
		hh, _, err := splitHostPort(hosts[0], 1)
		if err != nil || !strings.EqualFold(strings.TrimSuffix(hh, "."), strings.TrimSuffix(t.host, ".")) {
			return t, fmt.Errorf("the Host header %q names another host than %s", hosts[0], t.host)
		}
	}
	return t, nil
}

// hopHeaders are the headers of the hop between client and proxy; the
// proxy drops them before forwarding a plain request.
var hopHeaders = []string{"Proxy-Connection", "Proxy-Authorization", "Proxy-Authenticate", "Keep-Alive", "Connection", "Te", "Trailer", "Upgrade"}

// forward is the head of a plain request as the proxy sends it on: the
// origin-form path, the Host of the URI, the hop-by-hop headers dropped,
// and "Connection: close", so each proxied request has a connection of
// its own and no later request on the client's connection can follow the
// first to its host. An upgrade (WebSocket) keeps its headers.
func (h *requestHead) forward(t target) []byte {
	upgrade := len(h.get("Upgrade")) > 0
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\r\n", h.method, t.path, h.proto)
	host := t.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if t.port != 80 {
		host += ":" + strconv.Itoa(int(t.port))
	}
	fmt.Fprintf(&b, "Host: %s\r\n", host)
	for _, hd := range h.headers {
		drop := strings.EqualFold(hd.name, "Host")
		for _, hop := range hopHeaders {
			if strings.EqualFold(hd.name, hop) && !(upgrade && (hop == "Connection" || hop == "Upgrade")) {
				drop = true
			}
		}
		if !drop {
			fmt.Fprintf(&b, "%s: %s\r\n", hd.name, hd.value)
		}
	}
	if !upgrade {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}
