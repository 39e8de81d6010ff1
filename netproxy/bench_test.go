package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"testing"
)

// BenchmarkProxyBurst: 200 plain HTTP requests at once through the proxy
// to a server on the host's loopback.
func BenchmarkProxyBurst(b *testing.B) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	body := make([]byte, 4096)
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	port := netip.MustParseAddrPort(ln.Addr().String()).Port()
	pol, _ := ParsePolicy([]string{fmt.Sprintf("svc.test:%d", port)}, true)
	n := newTestNetwork()
	s, err := Start(Config{Policy: pol, Inside: n, Hosts: map[string][]netip.Addr{"svc.test": {netip.MustParseAddr("127.0.0.1")}}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	n.mu.Lock()
	proxy := n.streams[ProxyAddr]
	n.mu.Unlock()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for j := 0; j < 200; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", proxy)
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				fmt.Fprintf(c, "GET http://svc.test:%d/ HTTP/1.1\r\nHost: svc.test:%d\r\n\r\n", port, port)
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
			}()
		}
		wg.Wait()
	}
}
