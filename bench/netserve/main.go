// Command netserve is the host-side server of bench/network.sh: it
// listens on the host's 127.0.0.1, prints its port, and answers
// GET /bytes?n=N with N bytes, at most rate=R bytes a second if given (a
// link slower than the host's loopback, such as the internet's).
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	block := make([]byte, 1<<20)
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		rate, _ := strconv.ParseInt(r.URL.Query().Get("rate"), 10, 64)
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		start, sent := time.Now(), int64(0)
		for sent < n {
			k := min(n-sent, int64(len(block)))
			if _, err := w.Write(block[:k]); err != nil {
				return
			}
			sent += k
			if rate > 0 {
				time.Sleep(time.Until(start.Add(time.Duration(sent * int64(time.Second) / rate))))
			}
		}
	}))
}
