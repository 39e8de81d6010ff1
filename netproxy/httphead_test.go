package netproxy

import (
	"bufio"
	"strings"
	"testing"
)

func head(t *testing.T, s string) *requestHead {
	t.Helper()
	h, err := readHead(bufio.NewReader(strings.NewReader(s)))
	if err != nil {
		t.Fatalf("readHead(%q): %v", s, err)
	}
	return h
}

func TestRequestTarget(t *testing.T) {
	for _, tc := range []struct {
		in         string
		host, path string
		port       uint16
		err        string
	}{
		{in: "CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n", host: "github.com", port: 443},
		{in: "CONNECT github.com:443 HTTP/1.1\nHost: GitHub.com.\n\n", host: "github.com", port: 443},
		{in: "CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", host: "::1", port: 8443},
		{in: "GET http://example.com/a/b?c=d HTTP/1.1\r\nHost: example.com\r\n\r\n", host: "example.com", port: 80, path: "/a/b?c=d"},
		{in: "GET HTTP://example.com:8080 HTTP/1.0\r\n\r\n", host: "example.com", port: 8080, path: "/"},
		{in: "GET http://example.com?q HTTP/1.1\r\n\r\n", host: "example.com", port: 80, path: "/?q"},
		{in: "CONNECT github.com HTTP/1.1\r\n\r\n", err: "want HOST:PORT"},
		{in: "CONNECT github.com:0 HTTP/1.1\r\n\r\n", err: "want 1 to 65535"},
		{in: "CONNECT github.com:443@evil.com:443 HTTP/1.1\r\n\r\n", err: "bad authority"},
		{in: "GET http://user@evil.com@github.com/ HTTP/1.1\r\n\r\n", err: "bad authority"},
		{in: "GET http://git%68ub.com/ HTTP/1.1\r\n\r\n", err: "bad authority"},
		{in: "GET /relative HTTP/1.1\r\nHost: github.com\r\n\r\n", err: "absolute http:// URI"},
		{in: "GET https://github.com/ HTTP/1.1\r\n\r\n", err: "absolute http:// URI"},
		// The Host header must agree: no reaching one host in the name of another.
		{in: "CONNECT github.com:443 HTTP/1.1\r\nHost: evil.com:443\r\n\r\n", host: "github.com", port: 443, err: "another host"},
		{in: "CONNECT 10.0.0.1:443 HTTP/1.1\r\nHost: github.com\r\n\r\n", host: "10.0.0.1", port: 443, err: "another host"},
		{in: "GET http://github.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n", host: "github.com", port: 80, err: "another host"},
		{in: "GET http://github.com/ HTTP/1.1\r\nHost: github.com\r\nHost: evil.com\r\n\r\n", host: "github.com", port: 80, err: "more than one Host"},
	} {
		tg, err := head(t, tc.in).requestTarget()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			if tg.host != tc.host || tg.port != tc.port {
				t.Errorf("%q: target %+v with the error, want %s:%d", tc.in, tg, tc.host, tc.port)
			}
			continue
		}
		if err != nil || tg.host != tc.host || tg.port != tc.port || tg.path != tc.path {
			t.Errorf("%q: %+v %v, want %s %d %s", tc.in, tg, err, tc.host, tc.port, tc.path)
		}
	}
}

func TestReadHeadRefuses(t *testing.T) {
	for _, in := range []string{
		"GET\r\n\r\n",
		"GET  http://a/ HTTP/1.1\r\n\r\n",
		"GET http://a/ HTTP/2\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nX: 1\r\n folded\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nNo colon\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nBad name: 1\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nX: " + strings.Repeat("a", maxHead) + "\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nX: 1\r\n", // no end
	} {
		if _, err := readHead(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("readHead accepted %.60q", in)
		}
	}
}

func TestForward(t *testing.T) {
	h := head(t, "POST http://Example.com:8080/up?x HTTP/1.1\r\nHost: example.com:8080\r\nProxy-Connection: keep-alive\r\n"+
		"Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\nContent-Length: 3\r\nX-A: b\r\n\r\n")
	tg, err := h.requestTarget()
	if err != nil {
		t.Fatal(err)
	}
	want := "POST /up?x HTTP/1.1\r\nHost: Example.com:8080\r\nContent-Length: 3\r\nX-A: b\r\nConnection: close\r\n\r\n"
	if got := string(h.forward(tg)); got != want {
		t.Errorf("forward:\n%q\nwant\n%q", got, want)
	}
	ws := head(t, "GET http://example.com/ws HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
	tg, _ = ws.requestTarget()
	want = "GET /ws HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
	if got := string(ws.forward(tg)); got != want {
		t.Errorf("upgrade:\n%q\nwant\n%q", got, want)
	}
}

func FuzzReadHead(f *testing.F) {
	f.Add("CONNECT github.com:443 HTTP/1.1\r\nHost: github.com\r\n\r\n")
	f.Add("GET http://a.b:1/c HTTP/1.0\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		h, err := readHead(bufio.NewReader(strings.NewReader(in)))
		if err != nil {
			return
		}
		tg, err := h.requestTarget()
		if err != nil {
			return
		}
		if tg.port == 0 || tg.host == "" {
			t.Fatalf("target %+v from %q", tg, in)
		}
		out := string(h.forward(tg))
		if strings.Count(out, "\r\n\r\n") != 1 || !strings.HasSuffix(out, "\r\n\r\n") {
			t.Fatalf("forwarded head %q from %q", out, in)
		}
	})
}
